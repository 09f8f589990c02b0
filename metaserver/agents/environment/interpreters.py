"""Which Python interpreters this machine has, and which one a repository should get.

Candidates come from the places an operator is likely to have put them: the configured
``METASERVER_PYTHON``, the interpreter running metaserver, the system ``python3.X`` binaries,
pyenv's versions and uv-managed Pythons. uv cannot download interpreters on an air-gapped site,
so only what is already on disk counts.

The choice honours the repository's ``Requires-Python``, read from its static metadata without
running any of its code. The specifier grammar is evaluated here for interpreter versions only
(release numbers, no pre-releases), which keeps ``packaging`` out of metaserver's dependencies.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from metaserver.packaging_metadata import (
    metadata_text,
    pyproject_table,
    read_headers,
    read_setup_cfg,
)

__all__ = [
    "MIN_PYTHON",
    "Interpreter",
    "choose_interpreter",
    "discover_interpreters",
    "python_satisfies",
    "read_requires_python",
]

logger = logging.getLogger(__name__)

MIN_PYTHON = (3, 10)
"""Every environment also runs the generated FastMCP server, which needs Python 3.10 or newer."""

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")
_CLAUSE_RE = re.compile(r"^\s*(~=|===|==|!=|<=|>=|<|>)\s*([0-9][0-9A-Za-z.*+!-]*)\s*$")
_SETUP_PY_RE = re.compile(r"""python_requires\s*=\s*(['"])([^'"]+)\1""")


@dataclass(frozen=True, order=True)
class Interpreter:
    """A Python on this machine: its version first, so that sorting orders by version."""

    version: tuple[int, int, int]
    path: Path

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))


def discover_interpreters(configured: str | None = None) -> list[Interpreter]:
    """Every usable Python on this machine (3.10+), newest first, one per version.

    Args:
        configured: ``METASERVER_PYTHON``; listed like the others, and preferred by
            :func:`choose_interpreter` when it fits.

    Returns:
        The interpreters found; the one running metaserver is always among them.
    """
    found: dict[tuple[int, int, int], Interpreter] = {}
    for path in _candidate_paths(configured):
        version = _probe_version(str(path))
        if version is None or version[:2] < MIN_PYTHON:
            continue
        # The first path wins for a version: the configured and running ones come first.
        found.setdefault(version, Interpreter(version=version, path=path))
    return sorted(found.values(), reverse=True)


def _candidate_paths(configured: str | None) -> list[Path]:
    paths: list[Path] = []
    if configured:
        paths.append(Path(configured))
    running = getattr(sys, "_base_executable", None) or sys.executable
    paths.append(Path(running))
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    paths += sorted(pyenv_root.glob("versions/*/bin/python3"))
    uv_root = os.environ.get("UV_PYTHON_INSTALL_DIR")
    uv_pythons = Path(uv_root) if uv_root else Path.home() / ".local/share/uv/python"
    paths += sorted(uv_pythons.glob("cpython-*/bin/python3"))
    for directory in ("/usr/local/bin", "/usr/bin"):
        paths += sorted(Path(directory).glob("python3.[0-9]*"))
    unique: dict[Path, Path] = {}
    for path in paths:
        if not re.search(r"python3(\.\d+)?$", path.name):
            continue  # python3.11-config and friends
        try:
            resolved = path.resolve(strict=True)
        except OSError:
            continue
        if os.access(resolved, os.X_OK):
            # Keep the path as named (a pyenv shim resolves into a shared binary); dedupe on
            # the real file.
            unique.setdefault(resolved, resolved)
    return list(unique.values())


@functools.lru_cache(maxsize=64)
def _probe_version(path: str) -> tuple[int, int, int] | None:
    """Ask an interpreter for its version (host interpreters are trusted; no repository code)."""
    try:
        out = subprocess.run(
            [path, "-I", "-S", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = _VERSION_RE.match(out.strip())
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def read_requires_python(root: Path) -> str | None:
    """The project's ``Requires-Python``, from static metadata only (no code runs).

    Looked for in ``PKG-INFO`` (an sdist), ``pyproject.toml`` ``[project]``, ``setup.cfg``
    ``[options]`` and a literal ``python_requires=`` in ``setup.py``, in that order.
    """
    for reader in (_from_pkg_info, _from_pyproject, _from_setup_cfg, _from_setup_py):
        value = reader(root)
        if value and value.strip():
            return value.strip()
    return None


def _from_pkg_info(root: Path) -> str | None:
    headers = read_headers(root / "PKG-INFO")
    return headers.get("Requires-Python") if headers is not None else None


def _from_pyproject(root: Path) -> str | None:
    project = pyproject_table(root, "project")
    value = project.get("requires-python") if project is not None else None
    return value if isinstance(value, str) else None


def _from_setup_cfg(root: Path) -> str | None:
    parser = read_setup_cfg(root)
    return parser.get("options", "python_requires", fallback=None) if parser else None


def _from_setup_py(root: Path) -> str | None:
    text = metadata_text(root / "setup.py")
    match = _SETUP_PY_RE.search(text) if text else None
    return match.group(2) if match else None


def python_satisfies(version: Sequence[int], specifier: str | None) -> bool:
    """Whether an interpreter version meets a ``Requires-Python`` specifier set.

    Clauses are comma-separated and all must hold (PEP 440). A clause this function cannot
    read is treated as satisfied, so an odd spelling never hides every interpreter; the
    install itself is still the final judge.
    """
    if not specifier:
        return True
    release = tuple(version[:3]) + (0,) * (3 - len(version[:3]))
    return all(_clause_holds(release, clause) for clause in specifier.split(",") if clause.strip())


def _clause_holds(release: tuple[int, ...], clause: str) -> bool:
    match = _CLAUSE_RE.match(clause)
    if not match:
        logger.debug("unreadable Requires-Python clause %r; ignoring it", clause)
        return True
    operator, text = match.groups()
    wildcard = text.endswith(".*")
    numbers = _release_of(text[:-2] if wildcard else text)
    if numbers is None:
        return True
    if wildcard:
        prefix_equal = release[: len(numbers)] == numbers
        return prefix_equal if operator == "==" else not prefix_equal if operator == "!=" else True
    padded = numbers + (0,) * max(0, 3 - len(numbers))
    ours = release + (0,) * max(0, len(padded) - len(release))
    if operator == "~=":
        # ~=3.8 means >=3.8, ==3.*; ~=3.8.1 means >=3.8.1, ==3.8.*
        return ours >= padded and release[: max(1, len(numbers) - 1)] == numbers[:-1]
    comparisons = {
        "==": ours == padded,
        "===": ours == padded,
        "!=": ours != padded,
        "<=": ours <= padded,
        ">=": ours >= padded,
        "<": ours < padded,
        ">": ours > padded,
    }
    return comparisons[operator]


def _release_of(text: str) -> tuple[int, ...] | None:
    # Pre-release, post and local parts do not matter for a final interpreter release.
    match = re.match(r"^(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def choose_interpreter(
    candidates: Iterable[Interpreter], requires_python: str | None, preferred: Path | None = None
) -> Interpreter | None:
    """The interpreter for a repository, or None when none meets its ``Requires-Python``.

    Preference: ``preferred`` (the configured or running Python) when it fits; otherwise the
    fitting version nearest above it (the newest Pythons lag in binary wheels), and only then
    the newest below it.
    """
    every = list(candidates)
    fitting = [c for c in every if python_satisfies(c.version, requires_python)]
    if not fitting:
        return None
    anchor: tuple[int, int, int] | None = None
    if preferred is not None:
        for candidate in every:
            if candidate.path == preferred:
                if candidate in fitting:
                    return candidate
                anchor = candidate.version
        anchor = anchor or _probe_version(str(preferred))
    if anchor is None:
        return max(fitting)
    above = sorted(c for c in fitting if c.version >= anchor)
    if above:
        return above[0]
    return max(fitting)
