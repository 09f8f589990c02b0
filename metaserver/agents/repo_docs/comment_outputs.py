"""A value a code block shows in a comment: the README convention with no ``>>>`` prompts.

Many READMEs write a call's result as a comment under it (``textdistance.hamming('test',
'text')`` then ``# 1``), beside it (``hamming.similarity('test', 'text')  # 3``) or after
an arrow (``# => 0.25``, ``# Output: 'JLYFSH'``). Such a comment is the call's doctest
output, written another way: ``statements`` pairs each top-level statement of a block with
the output its comment shows, so that guide sessions keep it as a shown output and usage
mining as an assertion. Prose is no output: a bare comment counts only when it is a Python
literal (``# 1``, ``# [1, 2]``), and one after an arrow or an ``Output:`` label only when it
reads as a Python expression (``# => Point(1, 2)``), never ``# compute the distance``.
Only an expression statement shows a value; an assignment's comment says what it is for.
Static only (``ast`` and ``tokenize``): nothing is run.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

__all__ = ["statements"]

MAX_SHOWN_LINES = 20
"""Comment lines at most read as one statement's output."""

# An output written after an arrow or a label: ``# => 1``, ``# -> 1``, ``# Output: 1``.
_MARKED = re.compile(
    r"^(?:=+>|-+>|\u2192|out(?:put)?\s*(?:\[\d*\])?\s*[:=]|returns?\s*:|result\s*:)\s*(.*)$",
    re.IGNORECASE,
)
_ERRORS = (SyntaxError, ValueError, TypeError, MemoryError, RecursionError)


def statements(block: str) -> list[tuple[str, str]]:
    """Each top-level statement of a block's code with the output its comments show ("" for
    none); [] when the block does not parse."""
    try:
        tree = ast.parse(block)
    except _ERRORS:
        return []
    comments = _comments(block)
    lines = block.splitlines()
    found: list[tuple[str, str]] = []
    for place, statement in enumerate(tree.body):
        source = ast.get_source_segment(block, statement)
        if not source:
            continue
        shown = ""
        if isinstance(statement, ast.Expr):
            end = statement.end_lineno or statement.lineno
            following = tree.body[place + 1].lineno if place + 1 < len(tree.body) else None
            shown = _shown(comments, lines, end, following)
        found.append((source, shown))
    return found


def _comments(block: str) -> dict[int, str]:
    """Each comment's text (after ``#``, stripped) by its line number (1-based)."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(block).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string[1:].strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return found  # the tokens up to the error (ast parsed it, so rarely)
    return found


def _shown(comments: dict[int, str], lines: list[str], end: int, following: int | None) -> str:
    """The output shown by the comment beside a statement's last line, or else by the run
    of comment-only lines right under it (no blank line, before the next statement)."""
    beside = comments.get(end)
    if beside is not None and not lines[end - 1].lstrip().startswith("#"):
        return _output([beside])
    run: list[str] = []
    number = end + 1
    while number <= len(lines) and len(run) < MAX_SHOWN_LINES:
        if following is not None and number >= following:
            break
        if not lines[number - 1].lstrip().startswith("#") or number not in comments:
            break
        run.append(comments[number])
        number += 1
    return _output(run) if run else ""


def _output(texts: list[str]) -> str:
    """The output the comment lines ``texts`` show, or ""."""
    first = texts[0]
    marked = _MARKED.match(first)
    if marked:
        first = marked.group(1).strip()
    whole = "\n".join([first, *texts[1:]]).strip()
    for candidate in (whole, first):
        if candidate and (_literal(candidate) or (marked and _expression(candidate))):
            return candidate
    return ""


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except _ERRORS:
        return False
    return True


def _expression(text: str) -> bool:
    try:
        node = ast.parse(text, mode="eval").body
    except _ERRORS:
        return False
    # A bare word after an arrow is prose as often as a name (``# -> done``).
    return not isinstance(node, ast.Name)
