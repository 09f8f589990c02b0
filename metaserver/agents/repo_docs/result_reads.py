"""What a test reads of a result before it asserts a value: an item, a cell, a rounding.

A test suite seldom asserts a scientific result whole: ``assert round(stats.at[0, "chi2"],
3) == 22.717``, ``assert_allclose(aero[:3, :3], ref)``, ``assert len(sym["rotations"]) ==
96``, ``assert pt.loc[0, "p_unc"].round(3) == 0.932``. Each is a value the tool's own answer
holds, read the way the test reads it: ``peel`` takes those reads off the asserted side and
returns the expression underneath (the call, or the name holding its result) with the
reads, innermost first, which validation applies to the tool's JSON answer
(``validate/result_reads.py``). Static only (``ast``): nothing is imported or run.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from metaserver.contracts import JSON, ResultRead
from metaserver.probe.fold import literal_value

__all__ = ["Peeled", "peel"]

MAX_READS = 4
"""A longer chain is the test's computation, not a read of what the tool returned."""
_ROUNDERS = {"round", "around"}
"""``round(x, 3)``, ``np.round(x, 3)``, ``np.around(x, 3)``, ``x.round(3)``."""
_SAME = {"tolist", "to_numpy", "to_list", "item", "squeeze"}
"""Methods whose answer is the value's own JSON form (an array's list, a scalar's number)."""
_SAME_FUNCTIONS = {"float", "asarray", "array"}
"""Functions whose one argument's JSON form is their answer's (``np.asarray(r)``);
``list(...)`` and ``sorted(...)`` stay the doctest wrappers they are (``usage._unwrap``)."""
_ARRAY_MODULES = {"np", "numpy"}
_INDEXERS = {"at", "iat", "loc", "iloc"}
"""pandas' cell and row indexers: ``df.at[0, "F"]`` reads the records' row 0, column F."""


class Peeled(NamedTuple):
    """The asserted side without its reads, and the reads (innermost first)."""

    inner: ast.expr
    reads: list[ResultRead]


def peel(node: ast.expr) -> Peeled:
    """``node`` with the reads of a result taken off: an index or slice with literal keys
    (pandas' ``.at``/``.loc``/``.iloc`` too), a rounding to literal digits, ``len``,
    ``.shape``, ``int``, and conversions that leave the JSON form as it is (``float``,
    ``.tolist()``, ``np.asarray``). What is not a read stays: ``Peeled(node, [])``."""
    reads: list[ResultRead] = []
    while len(reads) <= MAX_READS:
        step = _read_of(node)
        if step is None:
            break
        node, read = step
        if read is not None:
            reads.append(read)
    if len(reads) > MAX_READS:
        return Peeled(node, [])
    return Peeled(node, reads[::-1])


def _read_of(node: ast.expr) -> tuple[ast.expr, ResultRead | None] | None:
    """(what ``node`` reads, the read) when ``node`` is one read of a value (None for a
    conversion that changes nothing in JSON), else None."""
    if isinstance(node, ast.Subscript):
        keys = _keys(node.slice)
        if keys is None:
            return None
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr in _INDEXERS:
            by_position = base.attr in ("iloc", "iat")
            read = ResultRead(op="index", keys=keys, via="iloc" if by_position else "loc")
            return base.value, read
        return base, ResultRead(op="index", keys=keys)
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value, ResultRead(op="shape")
    if isinstance(node, ast.Attribute) and node.attr == "values":
        return node.value, None
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and not _is_numpy(func.value):
        # ``x.round(3)``, ``x.tolist()``: a method of the value read
        if func.attr in _ROUNDERS and len(node.args) <= 1 and not node.keywords:
            digits = _digits(node.args[0] if node.args else None)
            return (
                (func.value, ResultRead(op="round", digits=digits)) if digits is not None else None
            )
        if func.attr in _SAME and not node.args and not node.keywords:
            return func.value, None
        return None
    name = func.id if isinstance(func, ast.Name) else None
    if isinstance(func, ast.Attribute) and _is_numpy(func.value):
        name = func.attr if func.attr in _ROUNDERS | {"asarray", "array"} else None
    if name is None or not node.args or isinstance(node.args[0], ast.Starred):
        return None
    first, rest = node.args[0], node.args[1:]
    if name in _ROUNDERS:
        given = rest[0] if rest else _keyword(node, "decimals", "ndigits")
        if len(rest) > 1 or (node.keywords and given is None):
            return None
        digits = _digits(given)
        return (first, ResultRead(op="round", digits=digits)) if digits is not None else None
    if rest or node.keywords:
        return None
    if name == "len":
        return first, ResultRead(op="len")
    if name == "int":
        return first, ResultRead(op="int")
    if name in _SAME_FUNCTIONS and (name == "float" or isinstance(func, ast.Attribute)):
        return first, None
    return None


def _is_numpy(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in _ARRAY_MODULES


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    found = [k.value for k in call.keywords if k.arg in names]
    return found[0] if len(found) == len(call.keywords) == 1 else None


def _digits(node: ast.expr | None) -> int | None:
    """A rounding's digits (0 when not given), or None when they are no small literal."""
    if node is None:
        return 0
    try:
        value = literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 15
        else None
    )


def _keys(node: ast.expr) -> list[JSON] | None:
    """A subscript's keys, one per dimension: literal ints and strings, or slices with
    literal bounds (``{"slice": [start, stop, step]}``); None for anything else."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    keys: list[JSON] = []
    for part in parts:
        if isinstance(part, ast.Slice):
            bounds = [_bound(b) for b in (part.lower, part.upper, part.step)]
            if any(b is _NOT_LITERAL for b in bounds):
                return None
            keys.append({"slice": bounds})  # type: ignore[dict-item]
            continue
        try:
            value = literal_value(part)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(value, bool) or not isinstance(value, int | str):
            return None
        keys.append(value)
    return keys


_NOT_LITERAL = "not a literal"


def _bound(node: ast.expr | None) -> int | str | None:
    """A slice bound: its int, None when absent, ``_NOT_LITERAL`` when it is no int."""
    if node is None:
        return None
    try:
        value = literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL
    if isinstance(value, bool) or not isinstance(value, int):
        return _NOT_LITERAL
    return value
