"""Text a test computes from its own string literals, read as the literal it is.

A test of a parser builds its input from a constant: ``line0, line1, line2 =
VANGUARD_TLE.splitlines()``, ``bad = LINE1[:68] + '7'``. Each is a literal once computed,
and the calls that take it (``export_omm(Satrec.twoline2rv(line1, line2), ...)``,
``fix_checksum(bad)``) are examples with the value the test asserts. Only text is
computed, by a whitelist: an index or slice with literal bounds, ``+`` of two texts, and
the string methods below with literal arguments; never ``eval``. Static only (``ast``,
host side): nothing is imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

__all__ = ["text_value"]

MAX_TEXT = 100_000
"""Characters of a computed text at most (``replace`` and ``+`` can grow one)."""
_METHODS: dict[str, Callable[..., object]] = {
    name: getattr(str, name)
    for name in (
        "splitlines",
        "split",
        "rsplit",
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "replace",
        "zfill",
        "ljust",
        "rjust",
    )
}
_ARGUMENT = (str, int, bool, type(None))

Text = str | list[str]


def text_value(node: ast.expr, bound: dict[str, ast.expr]) -> Text | None:
    """The text ``node`` computes from string literals and the names ``bound`` to them (a
    string, or the list ``split``/``splitlines`` make); None for anything else."""
    try:
        value = _value(node, bound, depth=0)
    except (TypeError, ValueError, IndexError, OverflowError, MemoryError):
        return None
    if isinstance(value, str) and len(value) <= MAX_TEXT:
        return value
    if (
        isinstance(value, list)
        and all(isinstance(item, str) for item in value)
        and sum(map(len, value)) <= MAX_TEXT
    ):
        return value
    return None


def _value(node: ast.expr, bound: dict[str, ast.expr], depth: int) -> object:
    if depth > 8:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, _ARGUMENT) else None
    if isinstance(node, ast.Name) and node.id in bound:
        given = bound[node.id]
        return given.value if isinstance(given, ast.Constant) else None
    if isinstance(node, ast.Subscript):
        return _item(_value(node.value, bound, depth + 1), node.slice, bound, depth)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, bound, depth + 1), _value(node.right, bound, depth + 1)
        if isinstance(left, str) and isinstance(right, str) and len(left) + len(right) <= MAX_TEXT:
            return left + right
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        method = _METHODS.get(node.func.attr)
        text = _value(node.func.value, bound, depth + 1)
        arguments = [_value(a, bound, depth + 1) for a in node.args]
        if method is None or not isinstance(text, str):
            return None
        if any(a is None or not isinstance(a, _ARGUMENT) for a in arguments):
            return None
        if any(isinstance(a, int) and a > MAX_TEXT for a in arguments):
            return None  # ``zfill(10**9)``
        result = method(text, *arguments)
        return result if isinstance(result, str | list) else None
    return None


def _item(value: object, key: ast.expr, bound: dict[str, ast.expr], depth: int) -> object:
    if not isinstance(value, str | list):
        return None
    if isinstance(key, ast.Slice):
        parts = (key.lower, key.upper, key.step)
        bounds = [None if part is None else _number(part) for part in parts]
        if any(b is None and p is not None for b, p in zip(bounds, parts, strict=True)):
            return None  # a bound that is no literal int
        if bounds[2] == 0:
            return None
        return value[slice(*bounds)]
    index = _number(key)
    return value[index] if isinstance(index, int) else None


def _number(node: ast.expr) -> int | None:
    """A literal int (``-1`` too), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None
