"""The optional dependency an exported server needs, declared the way the repository's own
packaging declares its extras.

A ``pyproject.toml`` with a static ``[project]`` table gets ``mcp = [...]`` under
``[project.optional-dependencies]``; a ``setup.cfg`` with an ``[options]`` section gets it
under ``[options.extras_require]`` (unless its ``setup.py`` passes ``extras_require=``, which
replaces those); anything else (a ``setup.py`` only, Poetry, dynamic
extras) gets a requirements file in the server's folder, since editing code or a tool's own
dialect could change more than the extra. Each edit only adds lines, so that the rest of the
file is byte for byte what the maintainers wrote, and the result is parsed again before it
is used.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from metaserver.packaging_metadata import metadata_text

__all__ = ["EXTRA", "PackagingEdit", "packaging_edit", "setuptools_discovers"]

EXTRA = "mcp"
_HEADER = re.compile(r"^\s*\[")
_SETUP_PY_LISTS = re.compile(r"\b(packages|py_modules)\s*=")
_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


@dataclass(frozen=True)
class PackagingEdit:
    """One file of the change that declares the server's requirements."""

    path: str  # relative to the repository root
    text: str  # the whole file after the edit
    original: str | None  # the whole file before it (None: a new file)
    install: str  # the command that installs the repository with them, from its root
    kind: str  # "pyproject" | "setup.cfg" | "requirements"


def packaging_edit(root: Path, requirements: list[str], folder: str) -> PackagingEdit:
    """The edit that declares ``requirements`` as the ``mcp`` extra of the project at
    ``root`` (or a requirements file under ``folder``)."""
    pyproject = metadata_text(root / "pyproject.toml")
    if pyproject is not None:
        edited = _pyproject_extra(pyproject, requirements)
        if edited is not None:
            return PackagingEdit(
                "pyproject.toml", edited, pyproject, f"pip install -e '.[{EXTRA}]'", "pyproject"
            )
    setup_cfg = metadata_text(root / "setup.cfg")
    # setup.py's own ``extras_require=`` replaces setup.cfg's extras: an
    # extra added there would never be declared.
    setup_py = metadata_text(root / "setup.py") or ""
    extras_in_code = re.search(r"\bextras_require\s*=", setup_py) is not None
    if setup_cfg is not None and _static_project(pyproject) is None and not extras_in_code:
        edited = _setup_cfg_extra(setup_cfg, requirements)
        if edited is not None:
            return PackagingEdit(
                "setup.cfg", edited, setup_cfg, f"pip install -e '.[{EXTRA}]'", "setup.cfg"
            )
    path = f"{folder}/requirements.txt"
    text = "".join(f"{requirement}\n" for requirement in requirements)
    return PackagingEdit(path, text, None, f"pip install -e . -r {path}", "requirements")


def setuptools_discovers(root: Path) -> bool:
    """Whether setuptools would find the project's packages by itself in a flat layout: then
    any new folder whose name is importable becomes a second top-level package, and the
    build refuses ("Multiple top-level packages discovered in a flat-layout")."""
    text = metadata_text(root / "pyproject.toml")
    data: dict[str, object] = {}
    if text is not None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            data = {}
    system = data.get("build-system")
    backend = system.get("build-backend") if isinstance(system, dict) else None
    legacy = (root / "setup.py").is_file() or (root / "setup.cfg").is_file()
    if not (str(backend or "").startswith("setuptools") or (backend is None and legacy)):
        return False
    if (root / "src").is_dir():
        return False  # src-layout: only src/ is searched
    tool = data.get("tool")
    own = tool.get("setuptools") if isinstance(tool, dict) else None
    if isinstance(own, dict) and ("packages" in own or "py-modules" in own):
        # A list names the packages; `packages.find` searches namespaces too (pyproject's
        # default), so only an `include` keeps a new folder out.
        found = own.get("packages")
        return isinstance(found, dict) and not _find_includes(found)
    texts = [metadata_text(root / "setup.cfg") or "", metadata_text(root / "setup.py") or ""]
    if any("find_namespace" in text for text in texts):
        return True  # a namespace search takes any folder, __init__.py or not
    setup_cfg = texts[0]
    if re.search(r"^\s*(packages|py_modules)\s*=", setup_cfg, re.M):
        return False
    return not _SETUP_PY_LISTS.search(texts[1])


def _find_includes(found: dict[str, object]) -> bool:
    search = found.get("find")
    return isinstance(search, dict) and bool(search.get("include"))


def _static_project(text: str | None) -> dict[str, object] | None:
    """The ``[project]`` table of a parseable pyproject, or None."""
    if text is None:
        return None
    try:
        project = tomllib.loads(text).get("project")
    except tomllib.TOMLDecodeError:
        return None
    return project if isinstance(project, dict) else None


def _pyproject_extra(text: str, requirements: list[str]) -> str | None:
    """``text`` with the extra added, or None where the project's extras are not a static
    table we can add a line to (dynamic, inline, taken, or no ``[project]`` at all)."""
    project = _static_project(text)
    if project is None or "optional-dependencies" in _strings(project.get("dynamic")):
        return None
    extras = project.get("optional-dependencies")
    if isinstance(extras, dict) and EXTRA in extras:
        return None
    line = f"{EXTRA} = [{', '.join(_toml_string(r) for r in requirements)}]\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tables = [(i, _table_name(line)) for i, line in enumerate(lines)]
    starts = [i for i, name in tables if name == "project.optional-dependencies"]
    if extras is not None and not starts:
        return None  # an inline table: `optional-dependencies = {...}` inside [project]
    if starts:
        at = _section_end(lines, starts[0])
        lines.insert(at, line)
    else:
        project_start = next((i for i, name in tables if name == "project"), None)
        if project_start is None:
            return None  # [project] written as dotted keys: not ours to restructure
        at = _section_end(lines, project_start)
        # The blank lines that ended [project] now end the new table.
        lines[at:at] = ["\n", "[project.optional-dependencies]\n", line]
    edited = "".join(lines)
    parsed = _static_project(edited)
    added = parsed.get("optional-dependencies") if parsed is not None else None
    if not isinstance(added, dict) or added.get(EXTRA) != requirements:
        return None
    return edited


def _table_name(line: str) -> str | None:
    match = _TABLE.match(line)
    if match is None or line.lstrip().startswith("[["):
        return None
    return "".join(match.group(1).split()).replace('"', "")


def _section_end(lines: list[str], start: int) -> int:
    """The index after the last non-blank line of the table that starts at ``start``."""
    end = start + 1
    while end < len(lines) and not _HEADER.match(lines[end]):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _setup_cfg_extra(text: str, requirements: list[str]) -> str | None:
    """``text`` with the extra under ``[options.extras_require]``, or None where setup.cfg
    declares no project (no ``[metadata]`` or ``[options]``) or the extra is taken."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not (parser.has_section("options") or parser.has_section("metadata")):
        return None
    if parser.has_option("options.extras_require", EXTRA):
        return None
    entry = [f"{EXTRA} =\n", *(f"    {r}\n" for r in requirements)]
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = next(
        (i for i, line in enumerate(lines) if line.strip() == "[options.extras_require]"), None
    )
    if start is None:
        lines.extend(["\n", "[options.extras_require]\n", *entry])
    else:
        at = _section_end(lines, start)
        lines[at:at] = entry
    edited = "".join(lines)
    check = configparser.ConfigParser(interpolation=None)
    check.read_string(edited)
    value = check.get("options.extras_require", EXTRA, fallback="")
    declared = [line.strip() for line in value.splitlines() if line.strip()]
    return edited if declared == requirements else None


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
