"""Whether building a tree from source needs a compiler (C, C++, Cython, Fortran, Rust).

Such a build costs minutes on a small machine (a large Cython library's: over half the
stage's budget on two cores) and fails where a system header or library is missing, while the index
holds the same version already built by its maintainers. The environment stage therefore
tries the published wheels of exactly the workspace's version first for such a tree, and
builds from source only when none fits (:mod:`metaserver.agents.environment.build`).

The signs are read from the tree's text, bounded: the build backends that exist to compile
(meson-python, scikit-build-core, maturin, setuptools-rust), an extension declared in
``setup.py``, and source files of compiled languages inside the package.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

__all__ = ["needs_compiler"]

_COMPILING_BACKENDS = ("mesonpy", "scikit_build_core", "maturin", "setuptools_rust")
_COMPILED_SUFFIXES = frozenset({".pyx", ".c", ".cc", ".cpp", ".cxx", ".f", ".f90", ".rs"})
_EXTENSION_CALL = re.compile(r"\b(?:Extension|cythonize|Pybind11Extension|RustExtension)\s*\(")
# Folders whose compiled sources are not part of the package's build.
_NOT_BUILT = frozenset({"tests", "test", "docs", "doc", "examples", "benchmarks", ".git"})
_MAX_FILES = 20_000
_MAX_SETUP_BYTES = 1_000_000


def needs_compiler(tree: Path) -> bool:
    """Whether installing ``tree`` from source compiles code."""
    return _backend_compiles(tree) or _setup_declares_extension(tree) or _has_compiled_sources(tree)


def _backend_compiles(tree: Path) -> bool:
    pyproject = tree / "pyproject.toml"
    if not pyproject.is_file():
        return False
    try:
        data = tomllib.loads(pyproject.read_text(errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    system = data.get("build-system")
    if not isinstance(system, dict):
        return False
    backend = str(system.get("build-backend") or "")
    requires = " ".join(str(r) for r in system.get("requires") or [])
    named = f"{backend} {requires}".replace("-", "_").lower()
    return any(name in named for name in (*_COMPILING_BACKENDS, "cython", "meson_python"))


def _setup_declares_extension(tree: Path) -> bool:
    setup = tree / "setup.py"
    try:
        if not setup.is_file() or setup.stat().st_size > _MAX_SETUP_BYTES:
            return False
        return bool(_EXTENSION_CALL.search(setup.read_text(errors="replace")))
    except OSError:
        return False


def _has_compiled_sources(tree: Path) -> bool:
    seen = 0
    for _, subfolders, files in os.walk(tree):  # links are not followed
        subfolders[:] = [s for s in subfolders if s not in _NOT_BUILT and not s.startswith(".")]
        for name in files:
            seen += 1
            if seen > _MAX_FILES:
                return False
            if Path(name).suffix.lower() in _COMPILED_SUFFIXES:
                return True
    return False
