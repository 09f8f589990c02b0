"""A table a doctest printed, compared with the frame the tool answered.

A data library's docs show a result as pandas prints it (``aov.round(3)``)::

           Source        SS  DF       MS      F  p_unc    np2
    0  Hair color  1360.726   3  453.575  6.791  0.004  0.576
    1      Within  1001.800  15   66.787    NaN    NaN    NaN

No literal reads that text, yet every cell is a value the tool must reproduce. The tool
answers the frame as the pandas codec writes it (records, or ``columns``/``index``/``data``
for a labelled index; a series as its list or ``name``/``index``/``data``: runtime/domain.py),
so the comparison is of cells, not of pandas' spacing: each row of the text is read against
the frame's row at the same place, in words and numbers. A number matches within half a
unit of its last printed digit (what ``round(3)`` or pandas' own six digits left), a text
cell by its words (``Hair color`` spans two), a missing value (``NaN``, ``None``) as null,
and a list cell (``[2.32, 9.08]``) item by item. Wrapped blocks of a wide frame (pandas ends
each but the last header with ``\\``) are read one after another over the columns.

When the header does not name the frame's columns, or pandas elided rows or cells
(``...``), the text is no table of this answer: it was not read, and the call's running is
all the example proves (``None``), as for a result read the answer's form cannot carry.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from metaserver.contracts import JSON

__all__ = ["table_differences"]

_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_MISSING = frozenset({"NaN", "nan", "None", "NaT", "<NA>"})
_INFINITE = {"inf": Decimal("Infinity"), "-inf": Decimal("-Infinity")}
_PUNCTUATION = re.compile(r"([\[\](),])")
_FOOTER = re.compile(r"\[\d+ rows x \d+ columns\]")
_SERIES_FOOTER = re.compile(r"(?:Name: .*, )?(?:dtype|Length): .*|Name: .*")
MAX_DIFFERENCES = 3


class _NotATable(Exception):
    """The text is not this answer's table."""


def table_differences(result: JSON, text: str) -> list[str] | None:
    """The cells where ``text`` (a printed frame or series) and ``result`` differ: empty
    when they agree, None when the text is not a table of this answer."""
    try:
        lines = [line.rstrip() for line in text.splitlines()]
        frame = _frame(result, _series_shaped(lines))
        if frame is None:
            return None
        columns, index, rows = frame
        if any(isinstance(label, list | dict) for label in index):
            return None  # a multi-level index prints its labels sparsely
        if any("..." in line for line in lines):
            return None  # pandas elided rows, columns or a long cell: not all of it shown
        if columns is None:
            return _series_differences(index, rows, lines)
        return _frame_differences(columns, index, rows, lines)
    except _NotATable:
        return None


def _series_shaped(lines: list[str]) -> bool:
    """Whether the text ends as pandas ends a series (``Name: p, dtype: float64``)."""
    body = [line.strip() for line in lines if line.strip()]
    return bool(body) and bool(_SERIES_FOOTER.fullmatch(body[-1]))


def _frame(
    result: JSON, series: bool
) -> tuple[list[str] | None, list[JSON], list[list[JSON]]] | None:
    """(columns, index, rows) of a frame answer; columns None for a series (its rows one
    cell each; one with a 0..n-1 index travels as its list, read so only where the text
    ends as a series does); None for any other answer."""
    if series and isinstance(result, list) and not any(isinstance(r, dict) for r in result):
        return None, list(range(len(result))), [[value] for value in result]
    if isinstance(result, list) and result and all(isinstance(r, dict) for r in result):
        first = result[0]
        assert isinstance(first, dict)
        names = list(first)
        if any(not isinstance(r, dict) or list(r) != names for r in result):
            return None
        rows = [list(r.values()) for r in result if isinstance(r, dict)]
        return names, list(range(len(result))), rows
    if isinstance(result, dict) and set(result) == {"columns", "index", "data"}:
        columns, index, data = result["columns"], result["index"], result["data"]
        if (
            isinstance(columns, list)
            and isinstance(index, list)
            and isinstance(data, list)
            and len(data) == len(index)
            and all(isinstance(row, list) and len(row) == len(columns) for row in data)
        ):
            return [str(c) for c in columns], index, [list(row) for row in data]
        return None
    if isinstance(result, dict) and set(result) == {"name", "index", "data"}:
        index, data = result["index"], result["data"]
        if isinstance(index, list) and isinstance(data, list) and len(index) == len(data):
            return None, index, [[value] for value in data]
    return None


def _frame_differences(
    columns: list[str], index: list[JSON], rows: list[list[JSON]], lines: list[str]
) -> list[str]:
    differences: list[str] = []
    start = 0
    for block in _blocks(lines):
        header, *body = block
        named = len(body) == len(index) + 1 and len(body[0].split()) == 1
        if named:
            body = body[1:]  # the index's name on a line of its own
        try:
            width = _header_width(header, columns[start:])
        except _NotATable:
            if not named:
                raise
            # the columns' own name heads the header when the index is named too
            # (``target  0  1`` over ``sex``): the names follow it
            width = _header_width(header.split(None, 1)[-1], columns[start:])
        shown = columns[start : start + width]
        if len(body) != len(index):
            return [f"{len(body)} rows shown, {len(index)} answered"]
        for place, line in enumerate(body):
            cells = [index[place], *rows[place][start : start + width]]
            differences += _row_differences(line, cells, [None, *shown], index[place])
        start += width
    if start != len(columns):
        raise _NotATable  # a column the text never shows: not this frame's table
    return differences[:MAX_DIFFERENCES]


def _series_differences(index: list[JSON], rows: list[list[JSON]], lines: list[str]) -> list[str]:
    body = [line for line in lines if line.strip()]
    if body and _SERIES_FOOTER.fullmatch(body[-1].strip()):
        body = body[:-1]
    if len(body) != len(index):
        raise _NotATable
    differences: list[str] = []
    for place, line in enumerate(body):
        differences += _row_differences(
            line, [index[place], *rows[place]], [None, "value"], index[place]
        )
    return differences[:MAX_DIFFERENCES]


def _blocks(lines: list[str]) -> list[list[str]]:
    """The blocks of a printed frame: pandas wraps a wide one in several, each a header
    (ending ``\\`` but the last) and all its rows, with a blank line between them."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if not line.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        if _FOOTER.fullmatch(line.strip()):
            continue
        blocks[-1].append(line.removesuffix("\\").rstrip())
    blocks = [b for b in blocks if b]
    if not blocks or any(len(b) < 2 for b in blocks):
        raise _NotATable
    return blocks


def _header_width(header: str, columns: list[str]) -> int:
    """How many of ``columns`` (from the first) the ``header`` line names, its words read
    as the column names' words in order."""
    words = header.split()
    taken = 0
    for width, name in enumerate(columns, start=1):
        taken += len(name.split())
        if words[:taken] != " ".join(columns[:width]).split():
            break
        if taken == len(words):
            return width
    raise _NotATable


def _row_differences(
    line: str, cells: list[JSON], names: list[str | None], label: JSON
) -> list[str]:
    """What in one printed row differs from the answer's ``cells`` (its index label
    first, named None)."""
    got = _atoms(line)
    wanted = [_cell_atoms(cell) for cell in cells]
    if len(got) != sum(len(atoms) for atoms in wanted):
        raise _NotATable  # the words do not line up with the cells: not read as this row
    differences: list[str] = []
    position = 0
    for name, atoms, cell in zip(names, wanted, cells, strict=True):
        shown = got[position : position + len(atoms)]
        position += len(atoms)
        if not all(_same_atom(s, a) for s, a in zip(shown, atoms, strict=True)):
            where = f"label of row {label}" if name is None else f"{name!r} of row {label}"
            differences.append(f"{where}: shown {' '.join(shown)}, answered {cell!r}"[:200])
    return differences


def _atoms(text: str) -> list[str]:
    """Words, numbers and list punctuation, as pandas' text and a cell's ``str`` both
    split."""
    return [part for word in text.split() for part in _PUNCTUATION.split(word) if part]


def _cell_atoms(cell: JSON) -> list[JSON]:
    """What a cell prints as, atom by atom: a number stays a number (compared by value)."""
    if cell is None or isinstance(cell, bool | int | float):
        return [cell]
    if isinstance(cell, list):
        atoms: list[JSON] = ["["]
        for place, item in enumerate(cell):
            atoms += [","] if place else []
            atoms += _cell_atoms(item)
        return [*atoms, "]"]
    if isinstance(cell, dict) and set(cell) == {"number", "text"}:
        return [cell["number"]]
    return list(_atoms(str(cell)))


def _same_atom(shown: str, answered: JSON) -> bool:
    if answered is None:
        return shown in _MISSING
    if isinstance(answered, bool):
        return shown == str(answered)
    if isinstance(answered, int | float):
        return _same_number(shown, answered)
    if isinstance(answered, str):
        if answered == shown or (answered in _MISSING and shown in _MISSING):
            return True  # NaN may travel as its text ("nan": runtime/codecs.py)
        return bool(_NUMBER.fullmatch(answered)) and _same_number(shown, float(answered))
    return False


def _same_number(shown: str, answered: int | float) -> bool:
    """Within half a unit of the last digit ``shown`` (pandas rounds what it prints)."""
    if answered != answered:  # NaN travels as a float only inside lists
        return shown in _MISSING
    try:
        value = _INFINITE.get(shown) or Decimal(shown)
    except InvalidOperation:
        return False
    if not value.is_finite() or abs(answered) == float("inf"):
        return value.is_finite() is False and float(value) == answered
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    slack = Decimal(5) * Decimal(10) ** (exponent - 1)
    try:
        return abs(Decimal(repr(answered)) - value) <= slack * (1 + Decimal("1e-9"))
    except InvalidOperation:
        return False
