"""Probe helper (runs INSIDE the target environment; standard library only): whether a
doctest's output is a table as pandas prints a frame or a series.

``aov.round(3)`` shows a header of column names and a row per index label; no literal reads
it, but each cell is a value (validate/tables.py compares them with the frame the tool
answers, and reads nothing where the text is no table of that answer). Only the shape is
judged here: two lines at least, each of two words at least (a series' last line, its
``dtype``, may be one), and nothing a literal or a repr starts with. Imports nothing else
of the probe.
"""

import re

_SERIES_FOOTER = re.compile(r"(?:Name: .*, )?(?:dtype|Length): .*|Name: .*")
_NOT_TABLES = ("[", "(", "{", "<", "'", '"', "Traceback")
_CALL = re.compile(r"[\w.]+\(")  # ``array([[1, 2],``: a repr


def table_shaped(want):
    """Whether ``want`` (a doctest's output) may be a printed frame or series: blocks (a wide
    frame wraps into several, a blank line between them) of a header and rows of two words
    at least, or a series' rows and its ``dtype`` line."""
    lines = [line.strip() for line in want.splitlines()]
    first = next((line for line in lines if line), "")
    if first.startswith(_NOT_TABLES) or _CALL.match(first):
        return False
    blocks = [[]]
    for line in lines:
        if line:
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [block for block in blocks if block]
    if len(blocks) == 1 and _SERIES_FOOTER.fullmatch(blocks[0][-1]):
        rows = blocks[0][:-1]
        return bool(rows) and all(len(line.split()) >= 2 for line in rows)
    return bool(blocks) and all(_frame_block(block) for block in blocks)


def _frame_block(block):
    """A header, then rows of two words at least; a named index prints its name alone on
    the line after the header."""
    rows = block[2:] if len(block) > 2 and len(block[1].split()) == 1 else block[1:]
    return bool(rows) and all(len(line.split()) >= 2 for line in rows)
