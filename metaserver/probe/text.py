"""Probe helper (runs INSIDE the target environment; standard library only): a call's
result shown as text.

A doctest line ``str(v.next_version("minor"))``, ``print(f(2))`` or ``repr(g())`` is an
example of the call inside: what it shows is the result's text, ``str`` of it (``print``
writes it bare, ``str(...)`` as a quoted string literal) or its ``repr``. The text becomes
the expected value under the wrapper ``"str"`` (validation compares it with a handle's
``text``, else its ``repr``, or with ``str`` of a plain result); a ``repr`` becomes what the
line would have shown without it (a literal, or a value in repr style).
"""

from __future__ import annotations

import ast

TEXT_READERS = {"str": "str", "print": "str", "repr": "repr"}
"""The builtins that show a result as text, and the text each shows."""

BUILTINS = {
    *TEXT_READERS,
    *("list", "tuple", "sorted", "set", "frozenset", "dict", "len", "bool", "type"),
    *("int", "float", "abs", "round", "sum", "min", "max", "format", "vars", "dir"),
}
"""Calls inside a reader that are no call of the package (``str(len(x))``)."""

TRACEBACK = "Traceback (most recent call last)"
READERS = {"len", "print", "repr", "str", "list", "tuple", "sorted", "set", "bool", "type"}
"""Builtins that show a value without changing it (``reads_only``)."""


def shown_as_text(node: ast.expr, want: str) -> tuple[ast.expr, str | None, str]:
    """(the call, the wrapper, the output to read) for a line ``str(CALL)``, ``print(CALL)``
    or ``repr(CALL)``, or one that compares a call's result (``_compared``); ``(node, None,
    want)`` for any other line.

    The output to read is written for ``examples.example_item``: the text as a quoted string
    literal (wrapper ``"str"``), or for ``repr`` the text itself, read as the line would
    have shown the result (wrapper None). ``want`` empty: the line shows nothing we read.
    """
    if isinstance(node, ast.Compare):
        return _compared(node, want)
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in TEXT_READERS
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Call)
    ):
        return node, None, want
    inner = node.args[0]
    if isinstance(inner.func, ast.Name) and inner.func.id in BUILTINS:
        return node, None, want
    reader, text = node.func.id, (want or "").strip()
    if not text or text.startswith(TRACEBACK):  # shows nothing, or that the call raised
        return inner, None, ""
    if reader != "print":  # ``str(x)``, ``repr(x)`` show a string literal
        text = _string_literal(text)
        if text is None:  # not what a doctest would show: read nothing
            return inner, None, ""
    if TEXT_READERS[reader] == "repr":
        return inner, None, text
    return inner, "str", repr(text)


def _compared(node: ast.Compare, want: str) -> tuple[ast.expr, str | None, str]:
    """``CALL == literal`` shown ``True`` (``img.shape == (2, 3)``, ``f(1) == 0.5``): the call,
    whose output the line asserts is that literal; the call alone, showing nothing we read,
    for any other comparison of a call (``img.get_data_dtype() == np.dtype(np.int16)``);
    ``(node, None, want)`` when the left side is no call."""
    left = node.left
    if not isinstance(left, ast.Call):
        return node, None, want
    if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq) or want.strip() != "True":
        return left, None, ""
    try:
        ast.literal_eval(node.comparators[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return left, None, ""
    return left, None, ast.unparse(node.comparators[0])


def _string_literal(text: str) -> str | None:
    """The value of ``text`` when it is one Python string literal, else None."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value.strip() if isinstance(value, str) else None


def reads_only(node: ast.expr | None) -> bool:
    """An expression that shows a value without calling anything of it but builtins that
    only read (``acc``, ``acc.size``, ``acc[0]``, ``acc[2:4]``, ``len(acc)``, ``list(acc)``)."""
    if isinstance(node, ast.Call):
        return (
            isinstance(node.func, ast.Name)
            and node.func.id in READERS
            and not node.keywords
            and all(reads_only(a) for a in node.args)
        )
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return reads_only(node.value)
    if isinstance(node, ast.Subscript):
        return reads_only(node.value) and reads_only(node.slice)
    if isinstance(node, ast.Slice):  # ``acc[2:4]``, ``acc[-6:]``
        parts = (node.lower, node.upper, node.step)
        return all(part is None or reads_only(part) for part in parts)
    if isinstance(node, ast.UnaryOp):
        return reads_only(node.operand)
    if isinstance(node, ast.Tuple):
        return all(reads_only(element) for element in node.elts)
    return False


def print_argument(node: ast.expr) -> ast.expr | None:
    """What ``print(x)`` prints (``x``); None for any other node."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0]
    return None
