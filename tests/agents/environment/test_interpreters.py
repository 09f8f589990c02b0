"""Interpreter discovery on this machine, and the choice by Requires-Python."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from metaserver.agents.environment.interpreters import (
    MIN_PYTHON,
    Interpreter,
    choose_interpreter,
    discover_interpreters,
    python_satisfies,
    read_requires_python,
)


@pytest.mark.parametrize(
    ("version", "specifier", "expected"),
    [
        ((3, 11, 7), None, True),
        ((3, 11, 7), "", True),
        ((3, 11, 7), ">=3.11", True),
        ((3, 10, 13), ">=3.11", False),
        ((3, 11, 2), ">=3.11.3", False),
        ((3, 12, 1), ">=3.8, <3.12", False),
        ((3, 11, 7), ">=3.8,<3.12", True),
        ((3, 8, 18), "<3.9", True),
        ((3, 11, 7), "~=3.8", True),
        ((3, 11, 7), "~=3.8.1", False),
        ((3, 8, 2), "~=3.8.1", True),
        ((3, 11, 7), "==3.11.*", True),
        ((3, 12, 1), "==3.11.*", False),
        ((3, 11, 7), "!=3.11.*", False),
        ((3, 13, 0), ">3.12", True),
        ((3, 12, 0), ">3.12", False),
        ((3, 11, 7), ">=3.7, !=3.10.0", True),
        ((3, 11, 7), "junk>>3", True),  # unreadable: never hides every interpreter
        ((3, 11, 7), ">=3.11.0rc1", True),
    ],
)
def test_requires_python(version: tuple[int, int, int], specifier: str, expected: bool) -> None:
    assert python_satisfies(version, specifier) is expected


def interp(version: str, name: str | None = None) -> Interpreter:
    numbers = tuple(int(part) for part in version.split("."))
    return Interpreter(
        version=(numbers[0], numbers[1], numbers[2]), path=Path(f"/py/{name or version}")
    )


CANDIDATES = [interp("3.13.0"), interp("3.12.1"), interp("3.11.7"), interp("3.10.13")]


def test_the_preferred_interpreter_wins_when_it_fits() -> None:
    chosen = choose_interpreter(CANDIDATES, ">=3.9", preferred=Path("/py/3.11.7"))
    assert chosen == interp("3.11.7")


def test_otherwise_the_nearest_newer_one() -> None:
    # 3.12 rather than 3.13: the newest Python is the last to get binary wheels.
    chosen = choose_interpreter(CANDIDATES, ">=3.12", preferred=Path("/py/3.11.7"))
    assert chosen == interp("3.12.1")


def test_otherwise_the_newest_older_one() -> None:
    chosen = choose_interpreter(CANDIDATES, "<3.11", preferred=Path("/py/3.11.7"))
    assert chosen == interp("3.10.13")


def test_none_when_nothing_fits() -> None:
    assert choose_interpreter(CANDIDATES, ">=3.99", preferred=Path("/py/3.11.7")) is None


def test_discovery_finds_the_running_python() -> None:
    found = discover_interpreters()
    assert found, "at least the interpreter running the tests"
    assert all(i.version[:2] >= MIN_PYTHON for i in found)
    assert found == sorted(found, reverse=True)
    running = tuple(sys.version_info[:3])
    assert running in [i.version for i in found]
    assert all(i.path.is_absolute() and i.path.exists() for i in found)


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("PKG-INFO", "Metadata-Version: 2.1\nName: x\nRequires-Python: >=3.12\n"),
        ("pyproject.toml", '[project]\nname = "x"\nrequires-python = ">=3.12"\n'),
        ("setup.cfg", "[metadata]\nname = x\n[options]\npython_requires = >=3.12\n"),
        ("setup.py", "from setuptools import setup\nsetup(name='x', python_requires='>=3.12')\n"),
    ],
)
def test_requires_python_is_read_without_running_code(
    tmp_path: Path, filename: str, text: str
) -> None:
    (tmp_path / filename).write_text(text)
    assert read_requires_python(tmp_path) == ">=3.12"


def test_no_requires_python(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert read_requires_python(tmp_path) is None
