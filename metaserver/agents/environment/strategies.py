"""What the environment stage installs for each strategy, and how it reads uv's failures.

The strategies themselves run in :mod:`metaserver.agents.environment.build`; this module holds the
pure parts: the requirement lists of a repository that is not an installable package, the
distribution a published-wheel attempt asks for, and the few lines of a failed install that
say why it failed.
"""

from __future__ import annotations

import logging
import re
import tomllib
from pathlib import Path

__all__ = [
    "PACKAGE_MARKERS",
    "collect_requirements",
    "decisive_lines",
    "installed_version",
    "is_installable",
]

logger = logging.getLogger(__name__)

PACKAGE_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
_REQUIREMENT_FILES = (
    "requirements.txt",
    "requirements.in",
    "requirements/base.txt",
    "requirements/main.txt",
    "requirements/requirements.txt",
    "requirements/prod.txt",
)
_MAX_INCLUDE_DEPTH = 5
# A line that installs a local path or the repository itself: the build that just failed.
_LOCAL_LINE = re.compile(r"^(?:-e|--editable)\b|^\.{1,2}(?:[/\[]|$)|^file:|^/")
# uv's error chain: "error:"/"cause:" lines, or on a terminal the marks U+00D7 (a cross) and
# U+251C/U+2570 (tree branches); then an exception line from a build backend's stderr.
_DECISIVE = re.compile(
    r"^\s*(?:error|cause|hint):|^\s*[\u00d7\u251c\u2570]"
    r"|^\s*\w+(?:\.\w+)*(?:Error|Exception|Exit):\s"
)


def is_installable(root: Path) -> bool:
    """Whether the tree is a package a build backend can install (its metadata files)."""
    if (root / "setup.py").is_file() or (root / "setup.cfg").is_file():
        return True
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return False
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    # A pyproject that only configures tools (ruff, black) describes no package.
    tool = data.get("tool")
    return (
        "project" in data
        or "build-system" in data
        or (isinstance(tool, dict) and ("poetry" in tool or "flit" in tool))
    )


def collect_requirements(root: Path) -> list[str]:
    """The requirements of a repository that is not (or could not be built as) a package.

    Read, in order: requirement files at the usual places (following ``-r``/``-c`` includes
    inside the tree), ``[project] dependencies`` of ``pyproject.toml``, and the ``pip:`` list
    of ``environment.yml``. Lines that would install the repository itself or another local
    path are dropped: that build is what failed, or there is nothing to build.
    """
    lines: list[str] = []
    for name in _REQUIREMENT_FILES:
        path = root / name
        if path.is_file():
            lines += _read_requirement_file(path, root, depth=0)
            break  # the first one found is the project's; the others are usually variants
    lines += _pyproject_dependencies(root)
    for name in ("environment.yml", "environment.yaml"):
        if (root / name).is_file():
            lines += _conda_pip_section(root / name)
    unique: list[str] = []
    for line in lines:
        if line not in unique:
            unique.append(line)
    return unique


def _read_requirement_file(path: Path, root: Path, depth: int) -> list[str]:
    if depth > _MAX_INCLUDE_DEPTH:
        return []
    out: list[str] = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        include = re.match(r"^(?:-r|--requirement|-c|--constraint)\s*=?\s*(\S+)$", line)
        if include:
            target = (path.parent / include.group(1)).resolve()
            if target.is_relative_to(root.resolve()) and target.is_file():
                out += _read_requirement_file(target, root, depth + 1)
            continue
        if line.startswith("-") or _LOCAL_LINE.match(line):
            # Index options belong to the operator's settings, not to the repository.
            logger.debug("ignoring requirement line %r in %s", line, path)
            continue
        out.append(line)
    return out


def _pyproject_dependencies(root: Path) -> list[str]:
    path = root / "pyproject.toml"
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return []
    project = data.get("project")
    dependencies = project.get("dependencies") if isinstance(project, dict) else None
    if not isinstance(dependencies, list):
        return []
    return [d.strip() for d in dependencies if isinstance(d, str) and not _LOCAL_LINE.match(d)]


def _conda_pip_section(path: Path) -> list[str]:
    """The entries under ``- pip:`` in a conda environment file (no YAML library needed)."""
    out: list[str] = []
    pip_indent: int | None = None
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if pip_indent is None:
            if re.match(r"^-\s*pip\s*:\s*$", stripped):
                pip_indent = indent
            continue
        if indent <= pip_indent or not stripped.startswith("-"):
            pip_indent = None
            continue
        item = stripped[1:].split(" #", 1)[0].strip().strip("'\"")
        if item and not item.startswith("-") and not _LOCAL_LINE.match(item):
            out.append(item)
    return out


def decisive_lines(output: str, limit: int = 8) -> str:
    """The lines of a failed uv run that say why: its error chain and the exception raised.

    uv prints ``error:`` and ``cause:`` lines (a tree of marks on a terminal) and, for a
    failed build, the backend's stderr; the last exception line of that is usually the fix a
    person needs (a missing compiler, header or library).
    """
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    chosen = [line.strip() for line in lines if _DECISIVE.search(line)]
    if not chosen:
        chosen = [line.strip() for line in lines[-limit:]]
    # Keep the head of the chain (what failed) and the tail (the innermost cause).
    if len(chosen) > limit:
        chosen = chosen[: limit // 2] + chosen[-(limit - limit // 2) :]
    return "\n".join(line[:300] for line in chosen) or "uv failed without a message"


def installed_version(freeze: str, distribution: str) -> str | None:
    """The version of ``distribution`` in ``uv pip freeze`` output."""
    wanted = re.sub(r"[-_.]+", "-", distribution).lower()
    for line in freeze.splitlines():
        name, sep, version = line.partition("==")
        if sep and re.sub(r"[-_.]+", "-", name.strip()).lower() == wanted:
            return version.strip()
    return None
