"""Which trees need a compiler to build from source."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.agents.environment.native_build import needs_compiler


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": '[build-system]\nbuild-backend = "mesonpy"\n', "pkg/__init__.py": ""},
        {"pyproject.toml": '[build-system]\nrequires = ["scikit-build-core>=0.9"]\n'},
        {"pyproject.toml": '[build-system]\nrequires = ["setuptools", "Cython>=3"]\n'},
        {"pyproject.toml": '[build-system]\nbuild-backend = "maturin"\n'},
        {"setup.py": "from setuptools import Extension\next = [Extension('a', ['a.c'])]\n"},
        {"setup.py": "from setuptools import setup\n", "pkg/_fast.pyx": "def f(): pass\n"},
        {"pyproject.toml": "[project]\nname = 'x'\n", "src/pkg/core.cpp": "int x;\n"},
    ],
    ids=["meson", "scikit-build", "cython", "maturin", "extension", "pyx", "cpp"],
)
def test_compiled_trees(tmp_path: Path, files: dict[str, str]) -> None:
    assert needs_compiler(_tree(tmp_path, files))


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": '[build-system]\nbuild-backend = "hatchling.build"\n', "pkg/a.py": ""},
        {"setup.py": "from setuptools import setup\nsetup(name='x')\n", "pkg/__init__.py": ""},
        # C sources only in tests or docs are not part of the build.
        {"pyproject.toml": "[project]\nname = 'x'\n", "tests/fixture.c": "int x;\n"},
        {"pyproject.toml": "[project]\nname = 'x'\n", "docs/example.c": "int x;\n"},
        {"pyproject.toml": "not = [valid toml", "pkg/a.py": ""},
    ],
    ids=["hatchling", "plain-setup", "c-in-tests", "c-in-docs", "broken-toml"],
)
def test_pure_python_trees(tmp_path: Path, files: dict[str, str]) -> None:
    assert not needs_compiler(_tree(tmp_path, files))
