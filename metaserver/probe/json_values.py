"""Probe helper (runs INSIDE the target environment; standard library only): values as
plain JSON.

``json_safe`` gives a value's JSON form (tuples as lists) or raises ``Unsupported``; every
module that writes a value into the report (an example's arguments, an expected output, a
constant) writes it through here. Imports nothing else of the probe.
"""

import enum
import math

JSON_SCALARS = (type(None), bool, int, float, str)


class Unsupported(Exception):
    """A type that JSON Schema cannot express (yet)."""


def json_safe(value):
    """``value`` as JSON if it is plain data, else raise :class:`Unsupported`."""
    if isinstance(value, float) and not math.isfinite(value):
        raise Unsupported(repr(value))  # nan and infinities have no JSON literal
    if isinstance(value, enum.Enum):
        return json_safe(value.value)  # the enum codec accepts a member's value
    if isinstance(value, JSON_SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (set, frozenset)):  # a set literal, read as written: its items
        return [json_safe(v) for v in sorted_items(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v) for k, v in value.items()}
    raise Unsupported(type(value).__name__)


def sorted_items(items):
    """Sorted, as runtime/codecs.py encodes a set; iteration order when items don't compare."""
    try:
        return sorted(items)
    except Exception:  # mixed or unorderable items raise all sorts of errors
        return list(items)
