"""A docs page as Sphinx shows it: the Python files its directives put on the page.

``.. plot:: pyplots/camera_approx_detail.py`` (matplotlib's plot directive, with which
scientific docs show a worked example beside its figure, often on the front page) and
``.. literalinclude:: ../examples/fit.py`` show a file's code where the directive stands.
Read as text, the page shows only the file's name, so the calls its readers see first were
missing from what the page documents. Here each such directive becomes the code block it
renders as. Static: the files are read, never run.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

__all__ = ["page_text"]

MAX_INCLUDED_BYTES = 100_000
"""A file larger than this is a program, not an example a page shows: left as its name."""
MAX_INCLUDES = 20

_INCLUDE = re.compile(
    r"^([ \t]*)\.\. (?:plot|literalinclude)::[ \t]+(\S+\.py)[ \t]*\n"
    r"((?:\1[ \t]+:[\w-]+:.*\n)*)",  # the directive's options
    re.M,
)
# literalinclude options that show part of the file only: the whole file is not what the
# page shows, so it is left out rather than read whole.
_SELECTING = re.compile(r":(?:lines|pyobject|start-after|end-before|start-at|end-at|diff):")
_RST_SUFFIXES = {".rst", ".txt", ".rest"}


def page_text(path: Path, root: Path) -> str:
    """The text of the page at ``path``, with each plot or literalinclude directive of a
    Python file under ``root`` replaced by a code block of that file's code. Raises
    ``OSError`` when the page cannot be read."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() not in _RST_SUFFIXES or ".. " not in text:
        return text

    def rendered(match: re.Match[str]) -> str:
        indent, name, options = match.group(1), match.group(2), match.group(3)
        if _SELECTING.search(options):
            return match.group(0)
        code = _included(name, path, root)
        if code is None:
            return match.group(0)
        body = textwrap.indent(code.rstrip("\n"), indent + "   ", lambda line: bool(line.strip()))
        return f"{indent}.. code-block:: python\n\n{body}\n\n"

    return _INCLUDE.sub(rendered, text, count=MAX_INCLUDES)


def _included(name: str, page: Path, root: Path) -> str | None:
    """The code of the file a directive on ``page`` names, as Sphinx finds it: relative to
    the page's folder, or to the docs' source folder (the one holding ``conf.py``) when the
    name starts with ``/``; None when that is not a small regular file under ``root``."""
    base = _source_folder(page, root) if name.startswith("/") else page.parent
    candidate = base / name.lstrip("/")
    try:
        if candidate.is_symlink() or not candidate.is_file():
            return None
        resolved, top = candidate.resolve(), root.resolve()
        if not resolved.is_relative_to(top) or resolved.stat().st_size > MAX_INCLUDED_BYTES:
            return None
        return resolved.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None


def _source_folder(page: Path, root: Path) -> Path:
    """The nearest folder above ``page`` (within ``root``) that holds Sphinx's ``conf.py``;
    ``root`` when none does."""
    for folder in page.parents:
        if folder == root or root not in folder.parents:
            break
        if (folder / "conf.py").is_file():
            return folder
    return root
