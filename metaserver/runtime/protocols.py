"""Result codecs by protocol: what a value can say about itself, for types no codec names.

Libraries bring their own number types (arbitrary-precision reals, big integers), arrays,
paths, dates, records and containers. They rarely share a base class, but they implement
the standard protocols: the numeric ABCs of ``numbers`` and the conversion dunders
(``__index__``, ``__float__``, ``__complex__``), ``__array__``/``tolist``, ``__fspath__``,
``isoformat``, ``_asdict``, ``to_dict``, and the mapping/sequence/set ABCs. ``to_json`` asks
here before it gives up and returns a handle.

Conversions are lossless where JSON allows: an integer stays an integer (JSON has no size
limit), a rational is ``"n/d"`` like ``Fraction``, and a real that a float would round
returns ``{"number": float, "text": exact digits}``. A protocol method that raises is
skipped, never fatal. Standard library only: this module runs in generated servers.
"""

from __future__ import annotations

import collections.abc
import numbers
import operator
import os
import sys
import types
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_ITEMS", "NO_PROTOCOL", "REAL_KEYS", "encode_protocol"]

NO_PROTOCOL: Any = object()
MAX_ITEMS = 10_000
"""The items a container may have to be answered as its items (more: it stays a handle)."""
REAL_KEYS = frozenset({"number", "text"})
"""The keys of a real number that a float would round: its float and its exact text."""

_NOT_VALUES = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def encode_protocol(value: Any, max_items: int = MAX_ITEMS) -> Any:
    """Plain Python data for ``value`` through the first protocol it implements, or
    ``NO_PROTOCOL``. Containers in the result are encoded by the caller, recursively."""
    if isinstance(value, _NOT_VALUES) or callable(value):
        return NO_PROTOCOL  # a class, module or function: its attributes are not its data
    for protocol in _PROTOCOLS:
        try:
            result = protocol(value, max_items)
        except Exception:
            continue
        if result is not NO_PROTOCOL:
            return result
    return NO_PROTOCOL


def _has(value: Any, name: str) -> bool:
    """Whether ``value``'s type defines ``name`` (instance attributes do not count)."""
    return getattr(type(value), name, None) is not None


def _integer(value: Any, max_items: int) -> Any:
    if isinstance(value, numbers.Integral) or _has(value, "__index__"):
        return operator.index(value)
    return NO_PROTOCOL


def _rational(value: Any, max_items: int) -> Any:
    if not isinstance(value, numbers.Rational):
        return NO_PROTOCOL
    numerator, denominator = operator.index(value.numerator), operator.index(value.denominator)
    return numerator if denominator == 1 else f"{numerator}/{denominator}"


def _real(value: Any, max_items: int) -> Any:
    if not (isinstance(value, numbers.Real) or _has(value, "__float__")):
        return NO_PROTOCOL
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        return NO_PROTOCOL  # a complex type may define __float__ only to raise
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return number  # the encoder spells these as text
    try:
        exact = bool(value == number)
    except Exception:
        exact = False
    if exact:
        return number
    return {"number": number, "text": str(value)}


def _complex(value: Any, max_items: int) -> Any:
    if not (isinstance(value, numbers.Complex) or _has(value, "__complex__")):
        return NO_PROTOCOL
    return complex(value)


def _array(value: Any, max_items: int) -> Any:
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        result = tolist()
        if isinstance(result, (list, int, float, complex, bool, str)):
            return result
    if _has(value, "__array__"):
        numpy = sys.modules.get("numpy")  # an __array__ result is a numpy array
        if numpy is not None:
            return numpy.asarray(value).tolist()
    return NO_PROTOCOL


def _path(value: Any, max_items: int) -> Any:
    return os.fspath(value) if _has(value, "__fspath__") else NO_PROTOCOL


def _date(value: Any, max_items: int) -> Any:
    isoformat = getattr(value, "isoformat", None)
    if callable(isoformat):
        text = isoformat()
        if isinstance(text, str):
            return text
    return NO_PROTOCOL


def _record(value: Any, max_items: int) -> Any:
    for name in ("_asdict", "to_dict"):
        method: Callable[[], Any] | None = getattr(value, name, None)
        if callable(method):
            result = method()
            if isinstance(result, collections.abc.Mapping):
                return dict(result)
    return NO_PROTOCOL


def _container(value: Any, max_items: int) -> Any:
    """A mapping as a dict, a sequence or set as a list; one too long to list stays a handle
    (the client can ask for parts of it), rather than arriving cut short."""
    mapping = isinstance(value, collections.abc.Mapping)
    listable = isinstance(value, (collections.abc.Sequence, collections.abc.Set))
    if not (mapping or listable) or isinstance(value, (str, bytes, bytearray)):
        return NO_PROTOCOL
    if len(value) > max_items:
        return NO_PROTOCOL
    return dict(value.items()) if mapping else list(value)


_PROTOCOLS = (_integer, _rational, _real, _complex, _array, _path, _date, _record, _container)
