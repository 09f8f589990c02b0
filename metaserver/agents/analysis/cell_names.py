"""Which names a tutorial's cells bind and read, in the order they run (issue 30).

A cell run in one namespace after the others can read only what an earlier cell (or the
runner: builtins, ``display``) bound. A docs page leaves out a fragment that reads a name
nothing bound (``env.run(until=i)`` before the page makes ``env``); a notebook or a script
that does is no tutorial that can run (``plt`` read where a notebook never imported it, as
an IPython profile that imports at start would have provided). A star import binds what its
module exports: read from the module's source when it is the repository's own, else unknown,
and then nothing after it is judged.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

__all__ = ["MAX_MODULE_BYTES", "Session", "bound_names", "free_names", "star_import", "star_names"]

MAX_MODULE_BYTES = 1_000_000
"""A star-imported module's source is read for its names only up to this size."""
RUNNER_NAMES = frozenset({"display"})
"""What ``runtime/notebook_runner.py`` binds before the first cell, beside the builtins."""


class Session:
    """The names the cells seen so far have bound, as they run one after another."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        # None: a star import bound names that cannot be known, so nothing more is judged.
        self.bound: set[str] | None = set(dir(builtins)) | RUNNER_NAMES

    def missing(self, tree: ast.Module) -> set[str]:
        """The names the cell reads as it runs that neither it nor an earlier cell binds."""
        if self.bound is None or star_import(tree):
            return set()
        return free_names(tree) - self.bound

    def add(self, tree: ast.Module) -> None:
        """The cell ran: what it binds is bound."""
        if self.bound is None:
            return
        if star_import(tree):
            starred = _starred(tree, self.root)
            self.bound = None if starred is None else self.bound | bound_names(tree) | starred
        else:
            self.bound |= bound_names(tree)


def star_import(tree: ast.Module) -> bool:
    """Whether the cell imports ``*``: the names it binds are known only from the module."""
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in ast.walk(tree)
    )


def _starred(tree: ast.Module, root: Path | None) -> set[str] | None:
    """The names the cell's star imports bind, or None where one cannot be known (a module
    not the repository's, a relative import)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or all(a.name != "*" for a in node.names):
            continue
        found = star_names(node.module, root) if root and node.module and not node.level else None
        if found is None:
            return None
        names |= found
    return names


def star_names(module: str, root: Path) -> set[str] | None:
    """The names ``from module import *`` binds, read from the module's source in the
    repository (``root/module`` or ``root/src/module``): its ``__all__`` when that is a
    literal list, else its public top-level names. None when the module is not the
    repository's, or its names cannot be read (an ``__all__`` built by code)."""
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for base in (root, root / "src"):
        for path in (
            base.joinpath(*parts, "__init__.py"),
            base.joinpath(*parts[:-1], f"{parts[-1]}.py"),
        ):
            try:
                if not path.is_file() or path.stat().st_size > MAX_MODULE_BYTES:
                    continue
                if not path.resolve().is_relative_to(root.resolve()):
                    continue
                tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
            except (OSError, SyntaxError, ValueError):
                return None
            return _exported(tree)
    return None


def _exported(tree: ast.Module) -> set[str] | None:
    """A module's star-importable names: its ``__all__`` when one literal assignment alone
    sets it, its public top-level names when nothing does, else None (built by code)."""
    setting = [node for node in tree.body if _sets_all(node)]
    if not setting:
        return _bound_top(tree.body)
    only = setting[0]
    if len(setting) > 1 or not isinstance(only, ast.Assign):
        return None
    try:
        names = ast.literal_eval(only.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(names, list | tuple) and all(isinstance(n, str) for n in names):
        return set(names)
    return None


def _sets_all(node: ast.stmt) -> bool:
    """Whether a top-level statement sets or changes ``__all__`` (``=``, ``+=``, a method)."""
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
    return any(isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(node))


def _bound_top(body: list[ast.stmt]) -> set[str] | None:
    """The public names a module's top-level statements bind, those under its ``if`` and
    ``try`` included (not its functions' or classes' own); None where one is a star import."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names):
                return None
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            nested: list[ast.stmt] = [*node.body, *getattr(node, "orelse", [])]
            if isinstance(node, ast.Try):
                nested += [*node.finalbody, *(s for h in node.handlers for s in h.body)]
            inner = _bound_top(nested)
            if inner is None:
                return None
            names |= inner
        else:
            names |= {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return {name for name in names if not name.startswith("_")}


def free_names(tree: ast.Module) -> set[str]:
    """The names the cell reads as it runs that it binds nowhere itself: a function's or a
    lambda's body runs later, when it is called, so its names are not read here."""
    own = bound_names(tree)
    read: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return read - own


def bound_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)  # ``except FitError as error:`` binds ``error``
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names
