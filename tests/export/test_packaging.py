"""The mcp extra, declared the way each kind of packaging declares extras, by adding lines."""

from __future__ import annotations

import configparser
import subprocess
import tomllib
from pathlib import Path

import pytest
from export_fixtures import EXPORT_PYPROJECT, fresh_env

from metaserver.export.packaging import EXTRA, packaging_edit, setuptools_discovers
from metaserver.export.tree import choose_folder

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


SETUPTOOLS = (
    '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
)


def test_setuptools_discovery_is_told_from_named_packages(tmp_path: Path) -> None:
    project = '[project]\nname = "flat"\nversion = "1"\n\n'
    cases = {
        project + SETUPTOOLS: True,  # flat layout, nothing named: setuptools searches
        project + SETUPTOOLS + '\n[tool.setuptools]\npackages = ["flat"]\n': False,
        project + SETUPTOOLS + "\n[tool.setuptools.packages.find]\nwhere = ['.']\n": True,
        project + SETUPTOOLS + "\n[tool.setuptools.packages.find]\ninclude = ['flat*']\n": False,
        project + '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n': (
            False
        ),
    }
    for text, discovers in cases.items():
        (tmp_path / "pyproject.toml").write_text(text)
        assert setuptools_discovers(tmp_path) is discovers, text
    (tmp_path / "pyproject.toml").write_text(project + SETUPTOOLS)
    (tmp_path / "src").mkdir()
    assert not setuptools_discovers(tmp_path)  # src-layout: only src/ is searched
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    assert setuptools_discovers(legacy)
    (legacy / "setup.py").write_text("from setuptools import setup\nsetup(packages=['x'])\n")
    assert not setuptools_discovers(legacy)
    (legacy / "setup.py").write_text("import setuptools\nsetuptools.find_namespace_packages()\n")
    assert setuptools_discovers(legacy)


@pytest.mark.integration
def test_the_folder_for_a_flat_layout_leaves_the_build_as_it_was(tmp_path: Path) -> None:
    """With ``mcp/`` setuptools refuses ("Multiple top-level packages discovered"); the name
    chosen for such a project is no identifier, which its discovery passes over."""
    repo = tmp_path / "flat"
    (repo / "flat").mkdir(parents=True)
    (repo / "flat" / "__init__.py").write_text("VALUE = 1\n")
    (repo / "pyproject.toml").write_text('[project]\nname = "flat"\nversion = "1"\n\n' + SETUPTOOLS)
    folder = choose_folder(repo, importable=not setuptools_discovers(repo))
    assert folder == "mcp-server"
    (repo / folder).mkdir()
    (repo / folder / "server.py").write_text("print('serving')\n")
    python = fresh_env(repo, ".")
    elsewhere = tmp_path / "elsewhere"  # not beside the repository, named like the package
    elsewhere.mkdir()
    shown = subprocess.run(
        [str(python), "-c", "import flat; print(flat.VALUE)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert shown.stdout.strip() == "1", shown.stderr


def test_setup_cfg_whose_setup_py_passes_extras_gets_a_requirements_file(tmp_path: Path) -> None:
    # setup(extras_require=...) replaces setup.cfg's extras: an entry there is never declared.
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = demo\n\n[options]\npackages = demo\n")
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nextras = {'fast': ['x']}\nsetup(extras_require=extras)\n"
    )
    edit = packaging_edit(tmp_path, REQUIREMENTS, "mcp")
    assert (edit.path, edit.kind) == ("mcp/requirements.txt", "requirements")
    assert edit.text.split() == REQUIREMENTS
