"""Worked examples outside notebooks (issue 30): sphinx-gallery scripts (``plot_*.py``) and
``examples/*.py``, read statically as tutorials.

A sphinx-gallery script is a sequence of blocks, split at ``# %%`` lines or a line of 20 or
more ``#`` (its text blocks are comments, so they run as nothing); a plain example script
is one block. The blocks become a notebook tool's code cells (``NotebookTarget.kind``
"script"): their leading literal assignments are the parameters, their printed values,
last expressions and figures (drawn or saved) the outputs, and, as nothing was stored, the
first run at validation makes the reference (``notebook-run``). A script that reads its
command line (argparse, click, typer, ``sys.argv``) or asks for input is an entry point of
another kind and is skipped with that reason, as is one that does not import the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from metaserver.agents.analysis.notebooks import title, tutorial_candidate
from metaserver.agents.repo_docs.tutorial_imports import EXAMPLE_DIRS
from metaserver.contracts import Candidate, NotebookCell

__all__ = ["EXAMPLE_DIRS", "MAX_EXAMPLE_FILES", "blocks", "example_candidate", "find_examples"]

MAX_EXAMPLE_FILES = 200
"""Files looked at, at most: a gallery of thousands is read by its first ones."""
MAX_EXAMPLE_BYTES = 200_000
_SKIP_PARTS = ("build", "dist", "node_modules", "auto_examples", "site-packages", "tests")
_SKIP_NAMES = ("__init__.py", "conf.py", "setup.py", "conftest.py", "noxfile.py")
_SEPARATOR = re.compile(r"^(?:# %%.*|#{20,}\s*)$")
_COMMAND_LINE = ("argparse", "click", "typer", "optparse", "fire", "docopt")


def find_examples(root: Path) -> list[Path]:
    """The ``*.py`` files under an examples, gallery or tutorials folder, in path order."""
    found: list[Path] = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if not any(p.lower() in EXAMPLE_DIRS for p in parts[:-1]):
            continue
        if any(p.startswith((".", "_")) or p in _SKIP_PARTS for p in parts[:-1]):
            continue
        if parts[-1] in _SKIP_NAMES or parts[-1].startswith("_"):
            continue
        if path.is_file() and not path.is_symlink():
            found.append(path)
        if len(found) >= MAX_EXAMPLE_FILES:
            break
    return found


def example_candidate(path: Path, root: Path, packages: set[str]) -> Candidate | str:
    """The tool candidate for the example script at ``path``, or why it cannot be one."""
    if path.stat().st_size > MAX_EXAMPLE_BYTES:
        return f"larger than {MAX_EXAMPLE_BYTES} bytes"
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return "not plain Python"
    problem = _interactive(tree)
    if problem:
        return problem
    heading = title(ast.get_docstring(tree) or "")
    if set(heading) <= set("=-~*#^ "):
        heading = ""
    cells = [NotebookCell(cell=i, source=text) for i, text in enumerate(blocks(source))]
    if not cells:
        return "no code"
    return tutorial_candidate(path, root, packages, cells, [], None, heading, kind="script")


def blocks(source: str) -> list[str]:
    """The code blocks of a script, split where sphinx-gallery splits them; the whole
    script as one when a split would break a statement (a separator inside a block)."""
    chunks: list[list[str]] = [[]]
    for line in source.splitlines():
        if _SEPARATOR.match(line):
            chunks.append([])
        else:
            chunks[-1].append(line)
    texts = ["\n".join(chunk) for chunk in chunks]
    kept: list[str] = []
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return [source] if source.strip() else []
        if tree.body and not all(_is_text(statement) for statement in tree.body):
            kept.append(text)
    return kept


def _is_text(statement: ast.stmt) -> bool:
    """A bare string: a docstring or a text block, which runs as nothing."""
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _interactive(tree: ast.Module) -> str:
    """Why the script needs its command line or a person, or "" when it does not."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for name in [*names, module or ""]:
                if name.split(".")[0] in _COMMAND_LINE:
                    return f"a command-line script (imports {name.split('.')[0]})"
        if isinstance(node, ast.Attribute) and node.attr == "argv":
            if isinstance(node.value, ast.Name) and node.value.id == "sys":
                return "a command-line script (reads sys.argv)"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "input":
                return "asks for input"
    return ""
