"""The modules a repository's tutorials import: its notebooks' code cells and its worked
example scripts (``examples/``, ``tutorials/``, sphinx-gallery folders), read statically.

Tutorials become tools (issue 30), so what they import is documented use as much as a
guide's imports: an optional extra that provides one (scikit-rf's ``plot`` extra for
``import matplotlib.pyplot``) is needed (``environment/extras.py``). Bounded: the first
``MAX_FILES`` files in path order, each up to ``MAX_BYTES``; nothing is run.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

__all__ = ["EXAMPLE_DIRS", "MAX_BYTES", "MAX_FILES", "tutorial_imports"]

EXAMPLE_DIRS = ("examples", "example", "gallery", "tutorials", "tutorial")
"""Folders whose ``*.py`` files are worked examples (``analysis/gallery.py`` too)."""
MAX_FILES = 300
MAX_BYTES = 2_000_000
_SKIPPED = ("node_modules", "build", "dist", "site-packages", "auto_examples")


def tutorial_imports(root: Path) -> list[str]:
    """Dotted module names the tutorials import (``from a.b import c`` gives ``a.b``), in
    the order met, each once; absolute imports only."""
    names: dict[str, None] = {}
    for path in _tutorial_files(root):
        for source in _sources(path):
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names.update((alias.name, None) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names[node.module] = None
    return list(names)


def _tutorial_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for path in sorted(root.rglob("*")):
        if len(found) >= MAX_FILES:
            break
        parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in _SKIPPED for p in parts[:-1]):
            continue
        notebook = path.suffix == ".ipynb"
        example = path.suffix == ".py" and any(p.lower() in EXAMPLE_DIRS for p in parts[:-1])
        if (notebook or example) and path.is_file() and not path.is_symlink():
            if path.stat().st_size <= MAX_BYTES:
                found.append(path)
    return found


def _sources(path: Path) -> list[str]:
    """The code of a script, or of each code cell of a notebook (magics and shell lines
    dropped: they are no Python)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if path.suffix != ".ipynb":
        return [text]
    try:
        cells = json.loads(text).get("cells") or []
    except (ValueError, AttributeError):
        return []
    sources = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        code = "".join(source) if isinstance(source, list) else str(source)
        lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
        sources.append("\n".join(lines))
    return sources
