"""Values a doctest shows in repr style: ``real('3.14')``, ``Fraction(1, 3)``,
``array([1, 2])``, ``mpz(12)``.

A library's own number or array type prints as a call of its constructor, which
``ast.literal_eval`` refuses. The shown value is still checkable: the constructor's one
literal argument (a number, a number's text, a list), or a fraction's two integers. Only
these shapes are interpreted; any other call (a record with several fields, an object with
keyword options) is not a value this module claims to understand.
"""

from __future__ import annotations

import ast
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import NamedTuple

from metaserver.contracts import JSON

__all__ = ["Shown", "as_exact", "number_shown", "record_fields", "repr_value"]

_FRACTION_NAMES = ("fraction", "rational", "mpq")


class Shown(NamedTuple):
    """A shown value: an exact number with the tolerance its printed digits allow, a list
    (an array), or a text."""

    value: JSON | Fraction
    tolerance: Fraction = Fraction(0)


def repr_value(text: str) -> Shown | None:
    """The value a repr-style output shows, or None when it is not one of the known shapes."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call) or not node.args or len(node.args) > 2:
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    try:
        args = [ast.literal_eval(a) for a in node.args]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not name or any(isinstance(a, bool) for a in args):
        return None
    if len(args) == 2:
        fraction = any(word in name.lower() for word in _FRACTION_NAMES)
        if fraction and all(type(a) is int for a in args) and args[1] != 0:
            return Shown(Fraction(args[0], args[1]))
        if not isinstance(args[0], str) or type(args[1]) is not int:
            return None  # mpfr('1.5', 128) is text and a precision; other pairs are records
    value = args[0]
    if isinstance(value, (int, float, str)):
        number = number_shown(value)
        if number is not None:
            return number
        return Shown(value) if isinstance(value, str) else None
    if isinstance(value, (list, tuple)):
        return Shown(_json_list(value))
    return None


def record_fields(text: str) -> tuple[str, dict[str, JSON]] | None:
    """A record shown as its constructor call with named literal fields
    (``Version(major=4, minor=0, prerelease=None)``): its name and fields, else None."""
    node = _shown_call(text)
    if node is None or node.args or not node.keywords:
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    fields: dict[str, JSON] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        try:
            value = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        fields[keyword.arg] = _json_list(value) if isinstance(value, (list, tuple)) else value
    return (name, fields) if name else None


def record_items(text: str) -> list[JSON] | None:
    """The items of a record shown as its constructor call with positional literal fields
    (``Interval(4, 7, (4, 7))``: ``[4, 7, [4, 7]]``), what unpacking it gives; else None."""
    node = _shown_call(text)
    if node is None or node.keywords or not isinstance(node.func, ast.Name | ast.Attribute):
        return None
    try:
        values = [ast.literal_eval(argument) for argument in node.args]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return _json_list(values) if values else None


def _shown_call(text: str) -> ast.Call | None:
    """The call a repr writes (``Name(...)``), or None when it is no call."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return node if isinstance(node, ast.Call) else None


def number_shown(value: int | float | str) -> Shown | None:
    """A number, or a number's text, as printed: exact, give or take its last digit."""
    exact = as_exact(value)
    if exact is None:
        return None
    return Shown(exact, _half_unit(value if isinstance(value, str) else repr(value)))


def _half_unit(digits: str) -> Fraction:
    """Half a unit in the last digit shown: '3.14' -> 0.005; an integer is exact."""
    try:
        exponent = Decimal(digits.strip()).as_tuple().exponent
    except (InvalidOperation, ValueError):
        return Fraction(0)
    if not isinstance(exponent, int) or exponent >= 0:
        return Fraction(0)
    return Fraction(1, 2) * Fraction(1, 10**-exponent)


def as_exact(value: object) -> Fraction | None:
    """A number, or a number's text (``'3.14'``, ``'1/3'``, ``'-2e5'``), as a Fraction."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return Fraction(value)
        except (ValueError, OverflowError):  # NaN and infinities have no exact value
            return None
    if isinstance(value, str):
        text = value.strip()
        try:
            return Fraction(text) if "/" in text else Fraction(Decimal(text))
        except (ValueError, ZeroDivisionError, InvalidOperation, OverflowError):
            return None
    return None


def _json_list(value: list[object] | tuple[object, ...]) -> list[JSON]:
    return [_json_list(v) if isinstance(v, (list, tuple)) else v for v in value]
