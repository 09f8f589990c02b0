"""Optional extras the repository's own guides and tutorials need: chosen before the
install, statically.

A distribution often declares what its array or plotting half needs as an extra
(``Requires-Dist: numpy; extra == "arrays"``), and a plain install leaves it out. When the
README, a guide page or a tutorial (a notebook, an example script: they become tools too)
imports such a module, directly (``import numpy as np``) or through a module of the package
that imports it (``from pkg import unumpy``, whose ``core.py`` has ``import numpy``), the
documented API cannot become tools without it. Deciding that up front,
from metadata and imports alone, costs one install; waiting for tools to fail costs a
validation round per missing module.

Only what documented use reaches is installed: of an extra, only the requirements that
provide a module the guides need (with the extra's version bounds), so a framework it offers
for an undocumented corner (a GPU backend, a web UI) stays out. A package module's imports
under ``try`` or ``if`` are options it runs without, not needs. Extras for the project's own
tooling (tests, docs, linting) and self-references (``pkg[a,b]`` in an ``all`` extra) are
never candidates; of the extras that provide a module, the one with the fewest requirements
wins.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from metaserver.agents.environment.distributions import import_names
from metaserver.agents.repo_docs.guides import guide_sessions
from metaserver.agents.repo_docs.tutorial_imports import tutorial_imports
from metaserver.packaging_metadata import pyproject_table, read_headers, read_setup_cfg

__all__ = ["ChosenExtra", "choose_extras", "declared_extras", "extra_requirements"]

MAX_MODULES = 300  # package modules read while following a guide's imports
# Extras for working on the project, not for using it.
_TOOLING = re.compile(
    r"^(?:tests?|testing|docs?|documentation|dev|develop|lint|style|typing|types?|check|"
    r"cover|coverage|enabler|bench|benchmarks?|release|build)$"
)
_EXTRA_MARKER = r"extra\s*==\s*['\"]{}['\"]"


@dataclass(frozen=True)
class ChosenExtra:
    """An extra, those of its requirements the guides need, and the first import that
    needs one."""

    name: str
    requirements: list[str]
    reason: str


def choose_extras(root: Path, distribution: str | None) -> list[ChosenExtra]:
    """The declared extras that the README and guide pages under ``root`` need, each with
    only those of its requirements that provide a module they import."""
    declared = declared_extras(root)
    if not declared:
        return []
    # The fetch stage read the distribution's name from the same metadata files.
    own = canonicalize_name(distribution) if distribution else None
    # What a plain install brings already: an extra is never needed for it.
    base = {m for r in _base_requirements(root) for m in import_names(_requirement_name(r) or "")}
    # top-level module -> (extra, the requirement of that extra providing it)
    providers: dict[str, list[tuple[str, str]]] = {}
    for extra, requirements in declared.items():
        if _TOOLING.match(extra.lower()):
            continue
        for text in extra_requirements(requirements, extra):
            name = _requirement_name(text)
            if name is None or canonicalize_name(name) == own:
                continue
            for module in import_names(name):
                providers.setdefault(module, []).append((extra, text))
    if not providers:
        return []
    chosen: dict[str, ChosenExtra] = {}
    for module, why in _needed_modules(root):
        offers = providers.get(module)
        if not offers or module in base:
            continue
        extra, requirement = min(offers, key=lambda o: (len(declared[o[0]]), o[0]))
        # Only what is needed, with the extra's bounds: an "optional" extra often bundles a
        # dozen packages (image codecs, GUI toolkits) for one module the guides use.
        found = chosen.setdefault(extra, ChosenExtra(name=extra, requirements=[], reason=why))
        if requirement not in found.requirements:
            found.requirements.append(requirement)
    return list(chosen.values())


def declared_extras(root: Path) -> dict[str, list[str]]:
    """Each declared extra's requirements: from ``PKG-INFO`` (a source distribution), else
    ``[project.optional-dependencies]``, else ``setup.cfg``'s ``[options.extras_require]``."""
    found = _from_pkg_info(root)
    if not found:
        found = _from_pyproject(root)
    if not found:
        found = _from_setup_cfg(root)
    return found


def extra_requirements(requirements: list[str], extra: str) -> list[str]:
    """The requirements as a plain install takes them: the ``extra == "X"`` clause gone,
    other markers (a Python version) kept for the installer to judge. Anything but a named
    requirement from the index (a URL, a path, an option) is left out."""
    out: list[str] = []
    for text in requirements:
        name, _, marker = text.partition(";")
        marker = re.sub(r"\s*\band\s+" + _EXTRA_MARKER.format(re.escape(extra)), "", marker)
        marker = re.sub(_EXTRA_MARKER.format(re.escape(extra)) + r"\s*(?:\band\b)?", "", marker)
        marker = marker.strip()
        if marker in ("", "()"):
            line = name.strip()
        else:
            line = f"{name.strip()}; {marker}"
        try:
            parsed = Requirement(line)
        except InvalidRequirement:
            continue
        if parsed.url is None and not line.startswith("-"):
            out.append(line)
    return out


def _base_requirements(root: Path) -> list[str]:
    """The requirements with no extra: ``PKG-INFO``'s, else ``[project] dependencies``."""
    headers = read_headers(root / "PKG-INFO")
    if headers is not None:
        lines = headers.get_all("Requires-Dist") or []
        return [line for line in lines if not re.search(r"\bextra\s*==", line)]
    project = pyproject_table(root, "project")
    dependencies = project.get("dependencies") if project is not None else None
    return [d for d in dependencies if isinstance(d, str)] if isinstance(dependencies, list) else []


def _from_pkg_info(root: Path) -> dict[str, list[str]]:
    headers = read_headers(root / "PKG-INFO")
    if headers is None:
        return {}
    found: dict[str, list[str]] = {e.strip(): [] for e in headers.get_all("Provides-Extra") or []}
    for line in headers.get_all("Requires-Dist") or []:
        match = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        if match:
            found.setdefault(match.group(1), []).append(line.strip())
    return {k: v for k, v in found.items() if v}


def _from_pyproject(root: Path) -> dict[str, list[str]]:
    project = pyproject_table(root, "project")
    optional = project.get("optional-dependencies") if project is not None else None
    if not isinstance(optional, dict):
        return {}
    return {
        str(extra): [r for r in reqs if isinstance(r, str)]
        for extra, reqs in optional.items()
        if isinstance(reqs, list)
    }


def _from_setup_cfg(root: Path) -> dict[str, list[str]]:
    parser = read_setup_cfg(root)
    if parser is None or not parser.has_section("options.extras_require"):
        return {}
    return {
        extra: [line.strip() for line in value.splitlines() if line.strip()]
        for extra, value in parser.items("options.extras_require")
    }


def _requirement_name(text: str) -> str | None:
    try:
        return Requirement(text).name
    except InvalidRequirement:
        return None


def _needed_modules(root: Path) -> list[tuple[str, str]]:
    """(top-level module, why) for every module outside the package and the standard library
    that the guides import, directly or through the package's own modules, first met first."""
    needed: dict[str, str] = {}
    seen: set[Path] = set()
    # The tutorials become tools too (issue 30): what they import is documented use.
    shown = [(name, "guides") for name in _guide_imports(root)]
    shown += [(name, "tutorials") for name in tutorial_imports(root)]
    for imported, where in shown:
        top = imported.partition(".")[0]
        path = _own_module(root, imported)
        if path is None:
            if top not in sys.stdlib_module_names and _own_module(root, top) is None:
                needed.setdefault(top, f"the {where} import {top}")
            continue
        for module, via in _module_closure(root, path, seen):
            why = f"the {where} import {imported}, whose {via} imports {module}"
            needed.setdefault(module, why)
    return list(needed.items())


def _guide_imports(root: Path) -> list[str]:
    """Dotted module names the README and guide pages import (``from a.b import c`` gives
    ``a.b`` and ``a.b.c``: c may be a submodule), in order."""
    names: list[str] = []
    for text in guide_sessions(root):
        for line in text.splitlines():
            if not line.startswith(">>> "):
                continue
            for name in _imports_of(line[4:]):
                if name not in names:
                    names.append(name)
    return names


def _imports_of(source: str, package: str | None = None) -> list[str]:
    """Modules an import statement in ``source`` names; a relative one resolved in
    ``package`` (the importing module's package)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in _module_level(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if package is None:
                    continue
                parts = package.split(".")
                if node.level > 1:
                    parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            if base:
                names.append(base)
                names += [f"{base}.{a.name}" for a in node.names if a.name != "*"]
    return names


def _module_level(tree: ast.AST) -> list[ast.stmt]:
    """Import statements a module cannot do without: run when it is imported (not inside a
    function or a class: a lazy import belongs to the call that makes it), and not under
    ``try`` or ``if`` (the module runs without it, so it is an option, not a need)."""
    found: list[ast.stmt] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(child, ast.Try | ast.TryStar | ast.If):
                # try: the body may fail. if: ``if TYPE_CHECKING``, ``if HAS_NUMPY`` (after a
                # guarded try), a version switch; either way the module runs without it.
                stack += child.finalbody if isinstance(child, ast.Try | ast.TryStar) else []
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            else:
                stack.append(child)
    return found


def _own_module(root: Path, dotted: str) -> Path | None:
    """The file of ``dotted`` in the tree (``pkg/mod.py``, ``pkg/mod/__init__.py``, also
    under ``src/``), None when the tree does not hold it."""
    parts = dotted.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    for base in (root, root / "src"):
        stem = base.joinpath(*parts)
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _module_closure(root: Path, start: Path, seen: set[Path]) -> list[tuple[str, str]]:
    """(outside module, the package file importing it) over ``start`` and the package
    modules it imports in turn."""
    found: list[tuple[str, str]] = []
    queue = [start]
    while queue and len(seen) < MAX_MODULES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        package = _dotted(root, path)
        if path.name != "__init__.py":
            package = package.rpartition(".")[0]
        try:
            source = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for name in _imports_of(source, package):
            own = _own_module(root, name)
            if own is not None:
                queue.append(own)
                continue
            top = name.partition(".")[0]
            own_top = _own_module(root, top) is not None
            if not own_top and top not in sys.stdlib_module_names and top != "__future__":
                found.append((top, str(path.relative_to(root))))
    return found


def _dotted(root: Path, path: Path) -> str:
    relative = path.relative_to(root)
    if relative.parts[0] == "src" and not (root / "src" / "__init__.py").is_file():
        relative = relative.relative_to("src")
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
