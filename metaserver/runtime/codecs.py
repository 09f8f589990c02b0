"""JSON <-> Python conversion for generated tools (docs/ARCHITECTURE.md decisions 2, 3 and 4).

``to_json`` turns any result into something ``json.dumps(..., allow_nan=False)`` accepts:
values with a natural JSON form are converted, everything else is kept server-side in a
``HandleTable`` and returned as a handle. Types no codec names are first asked through the
protocols they implement (``protocols.py``: numeric ABCs, ``tolist``, ``isoformat``...).
``from_json`` does the reverse for arguments, so a handle a client received can be passed
straight back to another tool.

Only the standard library is imported: this module is copied into generated servers that
run in the target library's environment. numpy values are recognised by their type's module
name, so numpy is never imported here.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import datetime
import enum
import io
import json
import math
import sys
import types
from collections.abc import ItemsView, Iterator, KeysView, ValuesView
from decimal import Decimal
from fractions import Fraction
from itertools import islice
from pathlib import PurePath
from typing import Any

from .domain import NO_CODEC, encode_domain
from .handles import HandleTable
from .protocols import MAX_ITEMS, NO_PROTOCOL, encode_protocol

__all__ = ["HANDLE_KEYS", "cap_result", "dumps_compact", "from_json", "json_size_ok", "to_json"]

HANDLE_KEYS = frozenset({"handle", "type", "repr", "text", "fields"})
"""The keys of a handle descriptor (``text`` only when its ``str`` differs from its repr;
``fields`` only for a tool whose documentation reads attributes of its result: call.py)."""
PREVIEW_CHARS = 1000
HEAD_LEAVES = 256
"""About how many leading items of an array too large to answer its notice's ``head`` holds
(the same count along each axis: 256 of a vector, 16 x 16 of an image)."""

_SEQUENCES = (list, tuple, collections.deque, KeysView, ValuesView, ItemsView)
_MAPPINGS = (dict, types.MappingProxyType, collections.ChainMap)
_SIMPLE_KEYS = (str, int, float, bool)


def to_json(
    value: Any, handles: HandleTable, *, max_items: int = MAX_ITEMS, max_depth: int = 50
) -> Any:
    """Convert ``value`` to a JSON-safe value, storing what has no codec in ``handles``."""
    return _Encoder(handles, max_items, max_depth).encode(value, 0)


class _Encoder:
    """One conversion's state: the limits and the containers on the current path (cycles)."""

    def __init__(self, handles: HandleTable, max_items: int, max_depth: int) -> None:
        self.handles = handles
        self.max_items = max_items
        self.max_depth = max_depth
        self.active: set[int] = set()

    def encode(self, value: Any, depth: int) -> Any:
        scalar = _encode_scalar(value)
        if scalar is not _NO_CODEC:
            return scalar
        if isinstance(value, enum.Enum):
            return self.encode(value.value, depth)
        if _is_numpy(value):
            try:
                plain = value.tolist()
            except Exception:  # an odd numpy object is still a handle
                return self.handles.put(value)
            return self.encode(plain, depth)
        if depth >= self.max_depth or id(value) in self.active:
            return self.handles.put(value)
        domain = encode_domain(value)
        if domain is not NO_CODEC:  # pandas, sympy, networkx, pydantic: plain data first
            return self.encode(domain, depth + 1)
        self.active.add(id(value))
        try:
            return self.encode_container(value, depth + 1)
        finally:
            self.active.discard(id(value))

    def encode_container(self, value: Any, depth: int) -> Any:
        """Containers and records; anything unrecognised becomes a handle."""
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            return {name: self.encode(item, depth) for name, item in fields.items()}
        names = getattr(type(value), "_fields", None)
        if isinstance(value, tuple) and isinstance(names, tuple):  # a namedtuple
            pairs = zip(names, value, strict=False)
            return {str(name): self.encode(item, depth) for name, item in pairs}
        if isinstance(value, _SEQUENCES):
            return [self.encode(item, depth) for item in value]
        if isinstance(value, (set, frozenset)):
            return [self.encode(item, depth) for item in _sorted_if_possible(value)]
        if isinstance(value, _MAPPINGS):
            return self.encode_mapping(value, depth)
        if isinstance(value, range) and _range_size(value) <= self.max_items:
            return list(value)
        if isinstance(value, Iterator) and not isinstance(value, io.IOBase):
            # Streams stay handles: reading a file here would consume the client's object.
            return [self.encode(item, depth) for item in islice(value, self.max_items)]
        if not isinstance(value, io.IOBase):
            # A library's own numbers, arrays, paths, dates, records and containers say
            # what they are through the standard protocols (protocols.py).
            plain = encode_protocol(value, self.max_items)
            if plain is not NO_PROTOCOL:
                return self.encode(plain, depth)
        return self.handles.put(value)

    def encode_mapping(self, value: Any, depth: int) -> Any:
        """A dict with string keys, or ``[[key, value], ...]`` when keys don't map to strings."""
        items = list(value.items())
        keys = _string_keys([key for key, _ in items])
        if keys is None:
            return [[self.encode(k, depth), self.encode(v, depth)] for k, v in items]
        return {key: self.encode(item, depth) for key, (_, item) in zip(keys, items, strict=True)}


_NO_CODEC = object()


def _encode_scalar(value: Any) -> Any:
    """The JSON form of a leaf value, or ``_NO_CODEC`` when ``value`` is not a known leaf."""
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, enum.Enum):
        return _NO_CODEC  # an IntEnum/StrEnum is encoded through its value
    if isinstance(value, float):
        return _encode_float(float.__float__(value))
    if isinstance(value, int):  # bool cannot be subclassed, so this is an int subclass
        return int.__index__(value)
    if isinstance(value, str):
        return str.__str__(value)
    return _encode_other_scalar(value)


def _encode_other_scalar(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (Decimal, Fraction)):
        return str(value)
    if isinstance(value, complex):
        return {"real": _encode_float(value.real), "imag": _encode_float(value.imag)}
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, PurePath):
        return str(value)
    return _NO_CODEC


def _encode_float(number: float) -> float | str:
    """Finite floats as numbers; NaN and infinities as text, since JSON has no literal."""
    if math.isfinite(number):
        return number
    if math.isnan(number):
        return "nan"
    return "inf" if number > 0 else "-inf"


def _is_numpy(value: Any) -> bool:
    """numpy arrays and scalars, recognised without importing numpy."""
    module = getattr(type(value), "__module__", None) or ""
    return module.startswith("numpy") and callable(getattr(value, "tolist", None))


def _range_size(value: range) -> int:
    """``len(value)``, which raises for ranges longer than ``sys.maxsize``."""
    try:
        return len(value)
    except OverflowError:
        return sys.maxsize


def _sorted_if_possible(items: set[Any] | frozenset[Any]) -> list[Any]:
    """Sorted, so equal sets give equal JSON; iteration order when items don't compare."""
    try:
        return sorted(items)
    except Exception:  # mixed or unorderable types raise all sorts of errors
        return list(items)


def _string_keys(keys: list[Any]) -> list[str] | None:
    """Keys as strings, or None when a key is not simple or two keys map to the same text."""
    if not all(isinstance(key, _SIMPLE_KEYS) and not isinstance(key, enum.Enum) for key in keys):
        return None
    texts = [key if type(key) is str else str(key) for key in keys]
    if len(set(texts)) != len(texts):
        return None
    return texts


def from_json(value: Any, handles: HandleTable) -> Any:
    """Replace handle descriptors (``{"handle": id, ...}``) with the stored objects.

    A dict counts as a handle when it has a string ``"handle"`` key and no keys beyond
    ``handle``/``type``/``repr``/``text``, so a descriptor returned by ``to_json`` can be
    passed back unchanged. An unknown or evicted id raises ``KeyError``.
    """
    if isinstance(value, dict):
        if _is_handle_ref(value):
            return handles.get(value["handle"])
        return {key: from_json(item, handles) for key, item in value.items()}
    if isinstance(value, list):
        return [from_json(item, handles) for item in value]
    return value


def _is_handle_ref(value: dict[Any, Any]) -> bool:
    return isinstance(value.get("handle"), str) and set(value) <= HANDLE_KEYS


def dumps_compact(value: Any) -> str:
    """Compact JSON text, the form whose size the caps measure."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_size_ok(value: Any, max_bytes: int) -> bool:
    """Whether the compact UTF-8 JSON of ``value`` fits in ``max_bytes``."""
    return len(dumps_compact(value).encode("utf-8")) <= max_bytes


def cap_result(value: Any, max_bytes: int, *, preview_chars: int = PREVIEW_CHARS) -> Any:
    """``value`` if its JSON fits in ``max_bytes``, else a small truncation notice.

    MCP clients feed results into a model's context; a multi-megabyte answer helps nobody,
    so the client gets the size and a preview and can ask for less. An array's notice also
    gives its ``shape`` (a rectangular list's): what a client asks for less of, and what a
    test that asserts ``img.get_fdata().shape`` compares. A list's, a text's or a byte
    string's notice gives its ``length`` (items, characters, bytes: ``len(ds.PixelData)``).
    An array's notice gives its ``head`` too: its leading block, the first items along each
    axis, as numpy prints an array's corner; a test that asserts ``aero[:3, :3]`` reads it
    there (the text preview cuts a 512-wide image inside its first row).
    """
    text = dumps_compact(value)
    size = len(text.encode("utf-8"))
    if size <= max_bytes:
        return value
    notice: dict[str, Any] = {"truncated": True, "bytes": size, "preview": text[:preview_chars]}
    shape = list_shape(value)
    if shape is not None:
        notice["shape"] = shape
        head = _head(value, shape)
        if head is not None and len(dumps_compact(head).encode("utf-8")) <= max_bytes // 4:
            notice["head"] = head
    length = json_length(value)
    if length is not None:
        notice["length"] = length
    return notice


def _head(value: list[Any], shape: list[int]) -> list[Any] | None:
    """The leading block of the rectangular list ``value``: the same number of items along
    each axis (fewer where an axis is shorter), about ``HEAD_LEAVES`` in all."""
    if not shape or 0 in shape:
        return None
    side = max(2, int(HEAD_LEAVES ** (1 / len(shape))))

    def block(items: list[Any], depth: int) -> list[Any]:
        kept = items[:side]
        return kept if depth + 1 == len(shape) else [block(item, depth + 1) for item in kept]

    return block(value, 0)


def json_length(value: Any) -> int | None:
    """``len`` of the value ``value`` is the JSON form of: a list's items, a text's
    characters, the bytes of a byte string (``{"base64": ...}``); None for anything else."""
    if isinstance(value, (list, str)):
        return len(value)
    if isinstance(value, dict) and set(value) == {"base64"} and isinstance(value["base64"], str):
        encoded = value["base64"]
        return len(encoded) * 3 // 4 - len(encoded) + len(encoded.rstrip("="))
    return None


def list_shape(value: Any) -> list[int] | None:
    """The shape of the array a list of lists is the JSON form of; None for anything else
    (a ragged list, an item, a list of objects)."""
    if not isinstance(value, list):
        return None
    shape: list[int] = []
    level: list[Any] = [value]
    while level and all(isinstance(item, list) for item in level):
        sizes = {len(item) for item in level}
        if len(sizes) != 1:
            return None
        shape.append(sizes.pop())
        level = [x for item in level for x in item]
    return None if any(isinstance(item, list | dict) for item in level) else shape
