"""Probe helper (runs INSIDE the target environment; standard library only): doctest
outputs that are values though no literal reads them.

``aov.round(3)`` shows a header of column names and a row per index label
(``table_shaped``); validate/tables.py compares each cell with the frame the tool answers,
and reads nothing where the text is no table of that answer. Only the shape is judged
here: two lines at least, each of two words at least (a series' last line, its ``dtype``,
may be one), and nothing a literal or a repr starts with. ``(-6102.44..., -986.33...)``
shows numbers a doctest's ELLIPSIS cut (``truncated_numbers``): the digits shown, within a
unit of the last. Imports nothing else of the probe.
"""

import ast
import re

_SERIES_FOOTER = re.compile(r"(?:Name: .*, )?(?:dtype|Length): .*|Name: .*")
ELLIPSIS = "..."
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


_TRUNCATED = re.compile(r"(?<![\w.])([-+]?\d+\.(\d+))\.\.\.([eE][-+]?\d+)?")
_ARRAY_OPEN = re.compile(r"(?<![\w.])array\(")
_DTYPE = re.compile(r",\s*dtype=[\w.]+\s*$")


def truncated_numbers(text):
    """``(value, unit)`` for an output whose numbers a doctest cut with ELLIPSIS
    (``(-6102.44..., -986.33...)``, ``0.3333...``): the value with each cut number as its
    digits shown, and the unit of the coarsest cut digit (how far the true number may be
    from what is shown); None when any ``...`` is not such a cut or the rest is no literal.
    An array printed as numpy prints one (``array([ 41.5278752...,  52.6385830...])``,
    colour-science's doctests) is its items.
    """
    text = _array_items(text)
    # ``1.2345...e-05``: the cut digit's unit scaled by the exponent the number goes on with
    units = [
        10.0 ** (int(match.group(3)[1:] if match.group(3) else 0) - len(match.group(2)))
        for match in _TRUNCATED.finditer(text)
    ]
    plain = _TRUNCATED.sub(lambda match: match.group(1) + (match.group(3) or ""), text)
    if not units or ELLIPSIS in plain:
        return None
    try:
        value = ast.literal_eval(plain.strip())
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    if not _numbers_only(value):
        return None
    return (list(value) if isinstance(value, tuple) else value), max(units)


def _array_items(text):
    """``text`` with each numpy array repr in it (``array([1.5..., 2.])``, ``array([...],
    dtype=float32)``, one item of a tuple too) written as its items' list."""
    out, at = [], 0
    for opening in _ARRAY_OPEN.finditer(text):
        if opening.start() < at:
            continue  # inside an array already written out
        depth, end = 1, opening.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        if depth:
            return text  # unbalanced: no repr
        out += [text[at : opening.start()], _DTYPE.sub("", text[opening.end() : end - 1])]
        at = end
    return "".join(out) + text[at:]


def _numbers_only(value):
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_numbers_only(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)
