"""The pure parts of the environment ladder: requirement lists and uv's decisive lines."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.environment.strategies import (
    collect_requirements,
    decisive_lines,
    installed_version,
    is_installable,
)


def test_requirements_files_follow_includes_and_drop_local_paths(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text(
        "# comment\n-e .\n.\n--index-url https://elsewhere\nnumpy>=1.20  # why\n-r extra.txt\n"
    )
    (tmp_path / "extra.txt").write_text("scipy\n-r /etc/passwd\n")
    assert collect_requirements(tmp_path) == ["numpy>=1.20", "scipy"]


def test_pyproject_and_conda_pip_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["attrs"]\n')
    (tmp_path / "environment.yml").write_text(
        "name: x\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n"
        "    - sympy==1.14\n    - -e .\n  - numpy\n"
    )
    assert collect_requirements(tmp_path) == ["attrs", "sympy==1.14"]


def test_installable(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert not is_installable(tmp_path)
    (tmp_path / "setup.py").write_text("")
    assert is_installable(tmp_path)


def test_decisive_lines_of_a_failed_build() -> None:
    output = (
        "Resolved 1 package in 1ms\n   Building x @ file:///w\n"
        "error: Failed to build `x @ file:///w`\n  cause: The build backend returned an error\n"
        '  [stderr]\n  Traceback (most recent call last):\n    File "setup.py", line 1\n'
        "  RuntimeError: no C compiler found\n"
    )
    lines = decisive_lines(output).splitlines()
    assert lines[0] == "error: Failed to build `x @ file:///w`"
    assert lines[-1] == "RuntimeError: no C compiler found"


def test_installed_version() -> None:
    freeze = "fastmcp==4.1.6\nmore-itertools==11.2.1\nx @ file:///w\n"
    assert installed_version(freeze, "More_Itertools") == "11.2.1"
    assert installed_version(freeze, "absent") is None
