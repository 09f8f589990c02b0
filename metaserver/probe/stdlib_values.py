"""Probe helper (runs INSIDE the target environment; standard library only): a standard
library value a doc writes as its constructor call.

``croniter.match("0 0 * * *", datetime(2019, 1, 14))``: the date is no literal, but it is a
value every client can send as JSON (an ISO string) and the runtime codecs rebuild
(``metaserver/runtime/decode.py``). Such an argument becomes that JSON, and an unannotated
parameter it is passed to takes the class's codec (as a held instance types its parameter).
Only these classes, called with literal arguments, are read: building one runs no code of
the package. A date, time or duration shown as an output (``datetime.datetime(2003, 9, 25,
10, 49)``, the repr doctest prints) is read the same way (``moment_value``): the JSON the
call's answer carries when it returns that very value.
"""

import ast
import datetime
import decimal
import fractions
import typing

from .scan import dotted

VALUE_CLASSES = (
    datetime.datetime,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    fractions.Fraction,
)


class StdlibValue:
    """An argument the doc builds from a standard library value class: its JSON form and
    the class whose codec decodes it."""

    def __init__(self, json, cls):
        self.json, self.cls = json, cls


def stdlib_value(node, resolve):
    """The :class:`StdlibValue` ``node`` builds (``datetime(2019, 1, 14, 6)``,
    ``Decimal("1.50")``, ``Fraction(1, 3)``) when it calls one of ``VALUE_CLASSES`` (as
    ``resolve`` finds its callee) with literal arguments; None otherwise."""
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return None
    cls = resolve(node.func)
    if not any(cls is known for known in VALUE_CLASSES):
        return None
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        value = cls(*args, **kwargs)
    except Exception:  # not literal, or arguments the class refuses: no value
        return None
    return StdlibValue(as_json(value), cls)


def as_json(value):
    """The JSON the runtime codec of ``value``'s class decodes back into it."""
    if isinstance(value, (datetime.date, datetime.time)):  # a datetime is a date too
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    return str(value)  # Decimal("1.50") -> "1.50", Fraction(1, 3) -> "1/3"


_MOMENTS = {
    "datetime.datetime": datetime.datetime,
    "datetime.date": datetime.date,
    "datetime.time": datetime.time,
    "datetime.timedelta": datetime.timedelta,
    "datetime.timezone": datetime.timezone,
}


def moment_value(text: str) -> typing.Any:
    """The JSON of the date, time, datetime or timedelta ``text`` shows as its repr
    (``datetime.datetime(2003, 9, 25, 10, 49, tzinfo=datetime.timezone.utc)`` ->
    ``"2003-09-25T10:49:00+00:00"``, ``datetime.timedelta(days=1)`` -> ``86400.0``), or
    None: any other text, or a time zone other than UTC or a fixed offset
    (``tzinfo=tzfile('Europe/Paris')``)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call) or _dotted(node.func) not in _MOMENTS:
        return None
    if _MOMENTS[_dotted(node.func)] is datetime.timezone:
        return None
    try:
        value = _built(node, 0)
    except (ValueError, TypeError, OverflowError, SyntaxError, RecursionError, MemoryError):
        return None
    return as_json(value)


def _built(node, depth):
    """The value a repr of these classes builds, nested ones (``tzinfo=``) included."""
    if depth > 3:
        raise ValueError("nested too deep")
    if _utc(node):
        return datetime.timezone(datetime.timedelta(0))  # +00:00, on any Python
    if isinstance(node, ast.Call) and _dotted(node.func) in _MOMENTS:
        if any(k.arg is None for k in node.keywords):
            raise ValueError("unpacked arguments")
        args = [_built(a, depth + 1) for a in node.args]
        kwargs = {k.arg: _built(k.value, depth + 1) for k in node.keywords}
        return _MOMENTS[_dotted(node.func)](*args, **kwargs)
    value = ast.literal_eval(node)
    if not isinstance(value, (int, float, str)) or isinstance(value, bool):
        raise ValueError("no literal of a moment")
    return value


def _utc(node):
    """A time zone a repr names as UTC, whichever library's it is: ``datetime.timezone.utc``,
    ``tzinfo=UTC`` (a zone whose repr is its name), ``tzutc()``: all answer +00:00."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return _dotted(node.func).rpartition(".")[2].lower() in ("utc", "tzutc")
    return _dotted(node).rpartition(".")[2].lower() == "utc"


def _dotted(node):
    return dotted(node) or ""
