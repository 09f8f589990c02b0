"""A test's reads of a result, applied to the tool's JSON answer.

``assert round(stats.at[0, "chi2"], 3) == 22.717`` compares one cell of a data frame,
rounded; the tool answers the whole frame, as the pandas codec writes it (records, or
``columns``/``index``/``data`` for a labelled index: runtime/domain.py). The reads the test
made (``repo_docs/result_reads.py``) are made here on that JSON, as numpy and pandas make
them on the object: an index per dimension (a slice on a list, a label or position through
``.loc``/``.iloc``), a rounding, ``len``, ``.shape``, ``int``. An answer whose form holds
no such value (a handle, a missing key) was not read: the call ran, and that is all the
example proves, as for an attribute the answer does not carry (``compare.attribute_of``).
"""

from __future__ import annotations

import math

from metaserver.contracts import JSON, ResultRead
from metaserver.runtime.codecs import json_length, list_shape

__all__ = ["read_result"]


class _NotRead(Exception):
    """The answer's JSON form holds no value for this read."""


def read_result(value: JSON, reads: list[ResultRead]) -> tuple[bool, JSON]:
    """(read, value): ``value`` after each read in turn; (False, None) when its form holds
    no such value."""
    try:
        for read in reads:
            value = _apply(value, read)
    except _NotRead:
        return False, None
    return True, value


def _apply(value: JSON, read: ResultRead) -> JSON:
    if _is_handle(value):
        raise _NotRead
    if read.op == "index":
        if read.via is None:
            if isinstance(value, dict) and value.get("truncated") is True:
                return _index_head(value, list(read.keys))
            return _index(value, list(read.keys))
        return _cell(value, list(read.keys), by_label=read.via == "loc")
    if read.op == "round":
        return _rounded(value, read.digits or 0)
    if read.op == "len":
        return _rows(value) if _frame(value) is not None else _length(value)
    if read.op == "shape":
        return _shape(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _NotRead  # int(...) of something else
    return int(value)


def _is_handle(value: JSON) -> bool:
    return isinstance(value, dict) and isinstance(value.get("handle"), str)


def _index(value: JSON, keys: list[JSON]) -> JSON:
    """numpy's ``a[k0, k1, ...]`` on nested lists, a mapping's ``d[key]``, a frame's
    column."""
    if not keys:
        return value
    key, rest = keys[0], keys[1:]
    if isinstance(value, list):
        if isinstance(key, str):
            if rest or not value or not all(isinstance(r, dict) and key in r for r in value):
                raise _NotRead
            return [r[key] for r in value if isinstance(r, dict)]  # a records frame's column
        if isinstance(key, dict):
            return [_index(item, rest) for item in value[_slice(key)]]
        return _index(_item(value, key), rest)
    if isinstance(value, dict) and isinstance(key, str):
        frame = _frame(value)
        if frame is not None and "columns" in value:
            columns, _, data = frame
            if key not in columns or rest:
                raise _NotRead
            return [row[columns.index(key)] for row in data]
        if key not in value:
            raise _NotRead
        return _index(value[key], rest)
    raise _NotRead


def _index_head(notice: dict[str, JSON], keys: list[JSON]) -> JSON:
    """numpy's ``a[k0, k1, ...]`` on an array too large to answer, read from the leading
    block its notice gives (``runtime/codecs.cap_result``): only where every position the
    keys select, on every axis, lies inside that block (a key past it, or an axis the keys
    leave whole that the block cuts, is not read)."""
    shape, head = notice.get("shape"), notice.get("head")
    if not isinstance(shape, list) or not isinstance(head, list) or len(keys) > len(shape):
        raise _NotRead
    sides = list_shape(head)
    if sides is None or len(sides) != len(shape) or not all(type(d) is int for d in shape):
        raise _NotRead
    picks: list[int | range] = []
    for axis, (size, side) in enumerate(zip(shape, sides, strict=True)):
        assert isinstance(size, int)
        positions = range(size)
        if axis >= len(keys):
            if side != size:
                raise _NotRead
            picks.append(positions)
            continue
        key = keys[axis]
        if isinstance(key, dict):
            chosen = positions[_slice(key)]  # a range: its ends bound every position
            if chosen and max(chosen[0], chosen[-1]) >= side:
                raise _NotRead
            picks.append(chosen)
        else:
            if isinstance(key, bool) or not isinstance(key, int) or not -size <= key < size:
                raise _NotRead
            if positions[key] >= side:
                raise _NotRead
            picks.append(positions[key])
    return _pick(head, picks)


def _pick(block: JSON, picks: list[int | range]) -> JSON:
    """``block`` indexed by one position or a range of positions per axis."""
    if not picks:
        return block
    assert isinstance(block, list)
    pick, rest = picks[0], picks[1:]
    if isinstance(pick, int):
        return _pick(block[pick], rest)
    return [_pick(block[position], rest) for position in pick]


def _cell(value: JSON, keys: list[JSON], *, by_label: bool) -> JSON:
    """pandas' ``.loc[row, column]`` (``by_label``) or ``.iloc[i, j]`` on a frame or a
    series as the codec writes them: records (a 0..n-1 index, so a label is a position),
    ``columns``/``index``/``data``, a plain list, or ``name``/``index``/``data``."""
    if not 1 <= len(keys) <= 2:
        raise _NotRead
    row_key, column_key = keys[0], keys[1] if len(keys) == 2 else None
    if isinstance(row_key, dict):
        raise _NotRead  # a slice of rows is a frame of its own
    frame = _frame(value)
    if frame is None:  # a series: a list, or labelled
        if column_key is not None:
            raise _NotRead
        if isinstance(value, list):
            return _item(value, row_key)
        if isinstance(value, dict) and isinstance(value.get("index"), list):
            index, data = value["index"], value.get("data")
            if not isinstance(data, list):
                raise _NotRead
            return data[_position(index, row_key, by_label)]
        raise _NotRead
    columns, index, data = frame
    row = data[_position(index, row_key, by_label)]
    if column_key is None:
        return row if not isinstance(value, list) else value[_position(index, row_key, by_label)]
    if not isinstance(row, list):
        raise _NotRead
    return row[_position(columns, column_key, by_label)]


def _frame(value: JSON) -> tuple[list[JSON], list[JSON], list[JSON]] | None:
    """(columns, index, rows as lists) of a frame as the pandas codec writes it."""
    if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
        columns: list[JSON] = list(value[0]) if isinstance(value[0], dict) else []
        if any(not isinstance(r, dict) or list(r) != columns for r in value):
            return None
        rows: list[JSON] = [list(r.values()) for r in value if isinstance(r, dict)]
        return columns, list(range(len(value))), rows
    if isinstance(value, dict) and set(value) == {"columns", "index", "data"}:
        columns_, index, data = value["columns"], value["index"], value["data"]
        if isinstance(columns_, list) and isinstance(index, list) and isinstance(data, list):
            return columns_, index, data
    return None


def _position(labels: list[JSON], key: JSON, by_label: bool) -> int:
    if by_label:
        if key not in labels:
            raise _NotRead
        return labels.index(key)
    if isinstance(key, bool) or not isinstance(key, int) or not -len(labels) <= key < len(labels):
        raise _NotRead
    return key % len(labels)


def _item(value: list[JSON], key: JSON) -> JSON:
    if isinstance(key, bool) or not isinstance(key, int) or not -len(value) <= key < len(value):
        raise _NotRead
    return value[key]


def _slice(key: dict[str, JSON]) -> slice:
    bounds = key.get("slice")
    if not isinstance(bounds, list) or len(bounds) != 3:
        raise _NotRead
    if any(b is not None and (isinstance(b, bool) or not isinstance(b, int)) for b in bounds):
        raise _NotRead
    if bounds[2] == 0:
        raise _NotRead
    return slice(*bounds)


def _rounded(value: JSON, digits: int) -> JSON:
    if isinstance(value, list):
        return [_rounded(item, digits) for item in value]
    if isinstance(value, dict):
        return {key: _rounded(item, digits) for key, item in value.items()}
    if isinstance(value, float) and math.isfinite(value):
        return round(value, digits)
    return value  # an int, a string, a missing value (NaN travels as null)


def _length(value: JSON) -> int:
    """``len`` of what ``value`` is the JSON form of: a list, a text, a series' rows, a byte
    string's bytes, what a truncation notice says of one too large to answer (its
    ``length``), an object's keys."""
    length = json_length(value)
    if length is not None:
        return length
    if isinstance(value, dict) and value.get("truncated") is True:
        shown = value.get("length")
        if type(shown) is int:
            return shown
        raise _NotRead
    if isinstance(value, dict):
        if set(value) == {"name", "index", "data"} and isinstance(value["index"], list):
            return len(value["index"])
        return len(value)
    raise _NotRead


def _rows(value: JSON) -> int:
    frame = _frame(value)
    assert frame is not None
    return len(frame[1])


def _shape(value: JSON) -> list[JSON]:
    """numpy's shape of nested lists (rectangular only), a frame's (rows, columns), or the
    shape a truncation notice gives of an array too large to answer whole."""
    frame = _frame(value)
    if frame is not None:
        return [len(frame[1]), len(frame[0])]
    if isinstance(value, dict) and value.get("truncated") is True:
        shown = value.get("shape")
        if isinstance(shown, list) and all(isinstance(d, int) for d in shown):
            return list(shown)
        raise _NotRead
    shape = list_shape(value)
    if not shape:
        raise _NotRead
    return list(shape)
