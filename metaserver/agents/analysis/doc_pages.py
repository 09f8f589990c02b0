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
import doctest
from pathlib import Path

from metaserver.agents.analysis.cell_names import Session, bound_names
from metaserver.agents.analysis.notebooks import runnable, tutorial_candidate
from metaserver.agents.repo_docs.code_blocks import doctest_examples, labelled_blocks
from metaserver.agents.repo_docs.toctrees import page_title
from metaserver.agents.repo_docs.usage import guide_files
from metaserver.contracts import JSON, Candidate, NotebookCell

__all__ = ["find_pages", "page_candidate", "page_cells"]

MAX_PAGE_BYTES = 300_000
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
    session = Session(root)
    for _, source, output in sorted(pieces, key=lambda piece: piece[0]):
        plain = runnable(source)
        if plain.startswith("!") or not plain.strip():
            continue
        tree = ast.parse(plain)
        if session.missing(tree):
            continue  # a fragment (``env.run(until=i)`` before the page makes ``env``)
        session.add(tree)
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
        bound |= bound_names(tree)
    return False
