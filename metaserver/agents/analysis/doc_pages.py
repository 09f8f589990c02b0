"""Docs pages whose code blocks form one session, as tutorials (issue 30), read statically.

A guide page (``repo_docs.usage.guide_files``, READMEs aside: their calls are the API's own
examples) often builds one thing block after block: ``data = load(...)``, then ``model =
fit(data)``, then ``model.predict(...)``. Such a page becomes a notebook tool
(``NotebookTarget.kind`` "page") whose cells are its statements in page order: each
``>>>`` example one cell, each block labelled Python one cell. What a ``>>>`` example shows
is its stored output (a statement's printed lines as ``stdout``; an expression's as doctest
reads them, its printed lines then its value, as ``shown``), which a rerun must reproduce
(``notebook-outputs``); a page that shows none is run once at validation to make its
reference (``notebook-run``). A page is a session only when a later cell uses a name an
earlier one bound; one that is not, or shows fewer than two
cells, is no tutorial and is not listed.
"""

from __future__ import annotations

import ast
import builtins
import doctest
from pathlib import Path

from metaserver.agents.analysis.notebooks import runnable, tutorial_candidate
from metaserver.agents.repo_docs.code_blocks import doctest_examples, labelled_blocks
from metaserver.agents.repo_docs.toctrees import page_title
from metaserver.agents.repo_docs.usage import guide_files
from metaserver.contracts import JSON, Candidate, NotebookCell

__all__ = ["find_pages", "page_candidate", "page_cells", "star_names"]

MAX_PAGE_BYTES = 300_000
MAX_MODULE_BYTES = 1_000_000
"""A star-imported module's source is read for its names only up to this size."""
MAX_CELLS = 200
"""Cells of one page at most: a longer page is a reference, not a worked example."""


def find_pages(root: Path) -> list[Path]:
    """The guide pages under ``root`` (not the READMEs), in the order the docs read them."""
    return [p for p in guide_files(root) if not p.name.lower().startswith("readme")]


def page_candidate(path: Path, root: Path, packages: set[str]) -> Candidate | str | None:
    """The tool candidate for the docs page at ``path``, why it cannot be one, or None
    when its code is no session (fewer than two cells, or none uses what another bound)."""
    try:
        if path.stat().st_size > MAX_PAGE_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    cells, stored = page_cells(text, root)
    if len(cells) < 2 or len(cells) > MAX_CELLS or not _builds_on(cells):
        return None
    return tutorial_candidate(path, root, packages, cells, stored, None, page_title(text), "page")


def page_cells(
    text: str, root: Path | None = None
) -> tuple[list[NotebookCell], list[dict[str, JSON]]]:
    """A page's statements in page order as cells, and the outputs its ``>>>`` examples
    show (by cell). Blocks that are not plain Python (a shell line, a prompt of another
    kind), fragments that read names no earlier cell bound, and examples marked to be
    skipped are left out; an example that shows an error or elides its output (``...``)
    runs with nothing compared. ``root``: the repository, where a star import's module is
    read for the names it binds."""
    pieces: list[tuple[int, str, dict[str, JSON]]] = []
    for example in doctest_examples(text):
        if example.options.get(doctest.SKIP):
            continue
        pieces.append((example.lineno, example.source.rstrip("\n"), _shown(example)))
    for line, block in labelled_blocks(text):
        if ">>>" not in block:  # a session in a block: read above, example by example
            pieces.append((line, block.strip("\n"), {}))
    cells: list[NotebookCell] = []
    stored: list[dict[str, JSON]] = []
    bound: set[str] | None = set(dir(builtins))  # None: a star import bound what it bound
    for _, source, output in sorted(pieces, key=lambda piece: piece[0]):
        plain = runnable(source)
        if plain.startswith("!") or not plain.strip():
            continue
        tree = ast.parse(plain)
        if bound is not None and _star_import(tree):
            # Known names only from the repository's own modules (``from pkg import *``
            # before a fragment reads ``start_times``); another's could bind anything.
            starred = _starred(tree, root)
            bound = None if starred is None else bound | _bound(tree) | starred
        elif bound is not None:
            if _free_names(tree) - bound:
                continue  # a fragment (``env.run(until=i)`` before the page makes ``env``)
            bound |= _bound(tree)
        index = len(cells)
        cells.append(NotebookCell(cell=index, source=plain))
        if output:
            stored.append({"cell": index, **output})
    return cells, stored


def _shown(example: doctest.Example) -> dict[str, JSON]:
    """What a ``>>>`` example shows: a statement's printed lines as stdout, an expression's
    as ``shown``; nothing when it shows an error or elides a part."""
    want = example.want
    if not want.strip() or example.exc_msg is not None or "..." in want:
        return {}
    want = "\n".join("" if line == "<BLANKLINE>" else line for line in want.splitlines())
    try:
        tree = ast.parse(example.source)
    except SyntaxError:
        return {}
    only = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(only, ast.Expr) and not _prints(only.value):
        # A call may print and show no value (``env.run()``): compared as doctest shows both.
        return {"shown": want}
    return {"stdout": want + "\n"}


def _prints(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return False
    return node.func.id == "print"


def _builds_on(cells: list[NotebookCell]) -> bool:
    """Whether a cell reads a name an earlier cell bound (an import, an assignment, a
    definition): the blocks form one session, not a list of separate snippets."""
    bound: set[str] = set()
    for cell in cells:
        tree = ast.parse(cell.source)
        read = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
        if read & bound:
            return True
        bound |= _bound(tree)
    return False


def _star_import(tree: ast.Module) -> bool:
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


def _free_names(tree: ast.Module) -> set[str]:
    """The names the cell reads as it runs that it binds nowhere itself: a function's or a
    lambda's body runs later, when it is called, so its names are not read here."""
    own = _bound(tree)
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


def _bound(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
    return names
