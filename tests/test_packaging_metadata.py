"""packaging_metadata: a project's static metadata files, read without running its code."""

from __future__ import annotations

from pathlib import Path

from metaserver.packaging_metadata import (
    MAX_METADATA_BYTES,
    metadata_text,
    pyproject_table,
    read_headers,
    read_pyproject,
    read_setup_cfg,
)


def test_absent_and_oversized_files_read_as_nothing(tmp_path: Path) -> None:
    assert metadata_text(tmp_path / "PKG-INFO") is None
    (tmp_path / "PKG-INFO").write_bytes(b"Name: big\n" + b"x" * MAX_METADATA_BYTES)
    assert read_headers(tmp_path / "PKG-INFO") is None
    assert read_pyproject(tmp_path) is None and read_setup_cfg(tmp_path) is None


def test_headers_keep_repeated_fields(tmp_path: Path) -> None:
    (tmp_path / "PKG-INFO").write_text(
        "Name: demo\nRequires-Dist: a\nRequires-Dist: b; extra == 'x'\n", encoding="utf-8"
    )
    headers = read_headers(tmp_path / "PKG-INFO")
    assert headers is not None and headers.get("Name") == "demo"
    assert headers.get_all("Requires-Dist") == ["a", "b; extra == 'x'"]


def test_pyproject_tables_and_broken_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n[tool.poetry]\nversion = "1.0"\n', encoding="utf-8"
    )
    assert pyproject_table(tmp_path, "project") == {"name": "demo"}
    assert pyproject_table(tmp_path, "tool", "poetry") == {"version": "1.0"}
    assert pyproject_table(tmp_path, "project", "name") is None  # a string, not a table
    (tmp_path / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    assert read_pyproject(tmp_path) is None


def test_setup_cfg_is_read_literally_and_leniently(tmp_path: Path) -> None:
    # "%" is no interpolation, and a repeated option does not make the file unreadable.
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = demo\nname = demo2\n[options]\npython_requires = >=3.8 # 100%\n",
        encoding="utf-8",
    )
    parser = read_setup_cfg(tmp_path)
    assert parser is not None
    assert parser.get("metadata", "name") == "demo2"
    assert parser.get("options", "python_requires") == ">=3.8 # 100%"
    (tmp_path / "setup.cfg").write_text("no section header\n", encoding="utf-8")
    assert read_setup_cfg(tmp_path) is None
