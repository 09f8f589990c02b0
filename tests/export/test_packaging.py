"""The mcp extra, declared the way each kind of packaging declares extras, by adding lines."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

from export_fixtures import EXPORT_PYPROJECT

from metaserver.export.packaging import EXTRA, packaging_edit

REQUIREMENTS = ["fastmcp==4.1.6", "demo[plot]"]


def _kept_every_line(before: str, after: str) -> bool:
    """Every line of ``before`` is in ``after``, in order: the edit only added lines."""
    remaining = iter(after.splitlines())
    return all(any(line == other for other in remaining) for line in before.splitlines())


def test_an_existing_extras_table_gets_one_more_line(tmp_path: Path) -> None:
    text = EXPORT_PYPROJECT.format(name="demo", package="demo")
    (tmp_path / "pyproject.toml").write_text(text)
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    assert (edit.path, edit.kind, edit.original) == ("pyproject.toml", "pyproject", text)
    extras = tomllib.loads(edit.text)["project"]["optional-dependencies"]
    assert extras == {"docs": ["sphinx"], EXTRA: REQUIREMENTS}
    assert _kept_every_line(text, edit.text)
    assert len(edit.text.splitlines()) == len(text.splitlines()) + 1
    assert edit.install == "pip install -e '.[mcp]'"


def test_a_project_without_extras_gets_the_table_after_project(tmp_path: Path) -> None:
    text = '[project]\nname = "demo"\nversion = "1"\n\n[build-system]\nrequires = ["x"]\n'
    (tmp_path / "pyproject.toml").write_text(text)
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    parsed = tomllib.loads(edit.text)
    assert parsed["project"]["optional-dependencies"] == {EXTRA: REQUIREMENTS}
    assert parsed["build-system"] == {"requires": ["x"]}
    assert edit.text.index("[project.optional-dependencies]") < edit.text.index("[build-system]")
    assert _kept_every_line(text, edit.text)


def test_a_file_without_final_newline_is_still_valid(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1"')
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    assert tomllib.loads(edit.text)["project"]["optional-dependencies"][EXTRA] == REQUIREMENTS


def test_dynamic_inline_or_taken_extras_get_a_requirements_file(tmp_path: Path) -> None:
    texts = [
        '[project]\nname = "d"\ndynamic = ["optional-dependencies"]\n',
        '[project]\nname = "d"\noptional-dependencies = {docs = ["x"]}\n',
        '[project]\nname = "d"\n\n[project.optional-dependencies]\nmcp = ["other"]\n',
        '[tool.poetry]\nname = "d"\n',  # Poetry's own dialect: not ours to restructure
    ]
    for text in texts:
        (tmp_path / "pyproject.toml").write_text(text)
        edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
        assert (edit.path, edit.kind) == ("mcp/requirements.txt", "requirements")
        assert edit.original is None
        assert edit.text.splitlines() == REQUIREMENTS
        assert edit.install == "pip install -e . -r mcp/requirements.txt"


def test_setup_cfg_gets_an_extras_require_entry(tmp_path: Path) -> None:
    text = "[metadata]\nname = demo\n\n[options]\npackages = demo\n"
    (tmp_path / "setup.cfg").write_text(text)
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp_server")
    assert (edit.path, edit.kind) == ("setup.cfg", "setup.cfg")
    parser = configparser.ConfigParser()
    parser.read_string(edit.text)
    assert parser.get("options.extras_require", EXTRA).split() == REQUIREMENTS
    assert _kept_every_line(text, edit.text)


def test_setup_cfg_with_extras_gets_one_more_entry_in_that_section(tmp_path: Path) -> None:
    text = "[metadata]\nname = demo\n\n[options.extras_require]\ndocs =\n    sphinx\n\n[flake8]\n"
    (tmp_path / "setup.cfg").write_text(text)
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    parser = configparser.ConfigParser()
    parser.read_string(edit.text)
    assert parser.get("options.extras_require", "docs").split() == ["sphinx"]
    assert parser.get("options.extras_require", EXTRA).split() == REQUIREMENTS
    assert edit.text.index("mcp =") < edit.text.index("[flake8]")


def test_a_setup_py_only_project_gets_a_requirements_file(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='demo')\n")
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    assert edit.path == "mcp/requirements.txt"
    assert not (tmp_path / "mcp").exists()  # an edit is a value; nothing is written
