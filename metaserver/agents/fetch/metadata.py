"""After every fetch: clean the tree, read its name and version, and insist that it holds Python.

The name and version come from static metadata files only (PKG-INFO, a wheel's METADATA,
pyproject.toml, setup.cfg, setup.py read as text), so no code from the fetched project runs;
a tree with no Python in it is refused here, before any later stage works on it.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path

from metaserver.agents.fetch.common import redact
from metaserver.agents.fetch.local import prune_escaping_links
from metaserver.agents.fetch.source import PYPI_NAME_RE
from metaserver.contracts import Workspace
from metaserver.exceptions import SourceError
from metaserver.packaging_metadata import (
    metadata_text,
    read_headers,
    read_pyproject,
    read_setup_cfg,
)

logger = logging.getLogger(__name__)

_SETUP_NAME_RE = re.compile(r"""\bname\s*=\s*(['"])([A-Za-z0-9._-]+)\1""")


def inspect_tree(workspace: Workspace) -> Workspace:
    """Clean the tree, read its name and version, and insist that it holds Python."""
    root = workspace.path
    prune_escaping_links(root)
    name, version = _read_metadata(root)
    if not _has_python(root):
        raise SourceError(f"no Python package found in {redact(workspace.source.original)}")
    return workspace.model_copy(
        update={"distribution": name, "version": workspace.version or version}
    )


def _read_metadata(root: Path) -> tuple[str | None, str | None]:
    """Project name and version from static metadata; no project code runs."""
    name: str | None = None
    version: str | None = None
    readers = (_from_pkg_info, _from_dist_info, _from_pyproject, _from_setup_cfg, _from_setup_py)
    for reader in readers:
        found_name, found_version = reader(root)
        if name is None and found_name and PYPI_NAME_RE.match(found_name):
            name = found_name
        if version is None and found_version:
            version = found_version
    return name, version


def _from_pkg_info(root: Path) -> tuple[str | None, str | None]:
    headers = read_headers(root / "PKG-INFO")
    if headers is None:
        return None, None
    return _clean(headers.get("Name")), _clean(headers.get("Version"))


def _from_dist_info(root: Path) -> tuple[str | None, str | None]:
    """A tree unpacked from a wheel: its one ``*.dist-info/METADATA``."""
    found = list(root.glob("*.dist-info/METADATA"))
    headers = read_headers(found[0]) if len(found) == 1 else None
    if headers is None:
        return None, None
    return _clean(headers.get("Name")), _clean(headers.get("Version"))


def _from_pyproject(root: Path) -> tuple[str | None, str | None]:
    data = read_pyproject(root)
    if data is None:
        return None, None
    project = data.get("project")
    if isinstance(project, dict) and project.get("name"):
        return _clean(project.get("name")), _clean(project.get("version"))
    # Poetry before PEP 621 keeps the metadata under [tool.poetry].
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict):
        return _clean(poetry.get("name")), _clean(poetry.get("version"))
    return None, None


def _from_setup_cfg(root: Path) -> tuple[str | None, str | None]:
    parser = read_setup_cfg(root)
    if parser is None:
        return None, None
    version = _clean(parser.get("metadata", "version", fallback=None))
    if version and ":" in version:
        version = None  # "attr: pkg.__version__" or "file: VERSION" need code or more files
    return _clean(parser.get("metadata", "name", fallback=None)), version


def _from_setup_py(root: Path) -> tuple[str | None, str | None]:
    text = metadata_text(root / "setup.py")
    if text is None:
        return None, None
    parsed = _setup_call_name(text)
    if parsed is not None:
        return parsed, None
    # Prefer a name= inside the setup( call over an Extension(name=...) before it.
    start = text.find("setup(")
    match = _SETUP_NAME_RE.search(text, start if start >= 0 else 0) or _SETUP_NAME_RE.search(text)
    return (match.group(2) if match else None), None


def _setup_call_name(text: str) -> str | None:
    """The ``name=`` of the ``setup(...)`` call, parsed (never run): a string literal, or a
    module-level name bound to one (``NAME = "pkg"`` then ``setup(name=NAME)``, a common
    style the text search misses, which left the probe not knowing what to import)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    constants: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                constants.update(_bound_strings(target, statement.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _called_name(node.func) != "setup":
            continue
        for keyword in node.keywords:
            if keyword.arg != "name":
                continue
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return _clean(value.value)
            if isinstance(value, ast.Name):
                return _clean(constants.get(value.id))
    return None


def _bound_strings(target: ast.expr, value: ast.expr) -> dict[str, str]:
    """``A = "x"`` and ``A, B = "x", "y"``: the names bound to string literals."""
    if isinstance(target, ast.Name):
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return {target.id: value.value}
        return {}
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        if len(target.elts) == len(value.elts):
            bound: dict[str, str] = {}
            for name, item in zip(target.elts, value.elts, strict=True):
                bound.update(_bound_strings(name, item))
            return bound
    return {}


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):  # setuptools.setup(...)
        return func.attr
    return None


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def _has_python(root: Path) -> bool:
    """Project metadata, a package directory (top level or src/), or a top-level module."""
    if any((root / marker).is_file() for marker in ("pyproject.toml", "setup.py", "setup.cfg")):
        return True
    for base in (root, root / "src"):
        if base.is_dir() and any(
            child.is_dir() and (child / "__init__.py").is_file() for child in base.iterdir()
        ):
            return True
    return any(child.suffix == ".py" and child.is_file() for child in root.iterdir())
