"""Probe helper (runs INSIDE the target environment; standard library only): a standard
library value a doc writes as its constructor call.

``croniter.match("0 0 * * *", datetime(2019, 1, 14))``: the date is no literal, but it is a
value every client can send as JSON (an ISO string) and the runtime codecs rebuild
(``metaserver/runtime/decode.py``). Such an argument becomes that JSON, and an unannotated
parameter it is passed to takes the class's codec (as a held instance types its parameter).
Only these classes, called with literal arguments, are read: building one runs no code of
the package.
"""

import ast
import datetime
import decimal
import fractions

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
