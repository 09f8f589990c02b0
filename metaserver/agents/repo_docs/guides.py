"""The README's and guide pages' code as doctest sessions, for the probe to read.

A method's docstring often lacks what the README shows first (``patch = Point(0,
0).buffer(10)``): the probe reads these texts as it reads a class's docstring
(``probe/sessions.py``), so such a call becomes an example replayed on the receiver
its own README line built. Read statically; one text per file, since a README's blocks
share their variables. ``>>>`` sessions are kept as written (with their shown outputs); a
fenced or directive block becomes one ``>>>`` line per statement, with the output its
comment shows (``hamming('test', 'text')`` then ``# 1``: comment_outputs.py), else none.
"""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.code_blocks import (
    doctest_examples,
    fenced_blocks,
    rst_blocks,
)
from metaserver.agents.repo_docs.comment_outputs import statements
from metaserver.agents.repo_docs.included_code import page_text
from metaserver.agents.repo_docs.usage import guide_files

__all__ = ["guide_sessions"]

MAX_TEXT = 200_000
"""Characters of session text at most, over all files: the probe reads it per method."""


def guide_sessions(root: Path) -> list[str]:
    """One doctest-style text per README or guide page under ``root`` that shows code."""
    texts: list[str] = []
    size = 0
    for path in guide_files(root):
        try:
            text = page_text(path, root)
        except OSError:
            continue
        session = _session(text)
        if not session:
            continue
        if size + len(session) > MAX_TEXT:
            break
        texts.append(session)
        size += len(session)
    return texts


def _session(text: str) -> str:
    lines: list[str] = []
    for example in doctest_examples(text):
        lines += _prompted(example.source)
        lines += [line for line in example.want.rstrip("\n").splitlines() if line.strip()]
        lines.append("")
    blocks = fenced_blocks(text)
    blocks += rst_blocks(text)
    for block in blocks:
        if ">>>" in block:
            continue  # a session: doctest read it above
        for source, shown in statements(block):
            lines += _prompted(source)
            lines += shown.splitlines()
            lines.append("")
    return "\n".join(lines).strip()


def _prompted(source: str) -> list[str]:
    first, *rest = source.rstrip("\n").splitlines() or [""]
    return [f">>> {first}", *(f"... {line}" for line in rest)]
