"""A bounded table of server-side objects, addressed by unguessable handle ids.

Results that have no JSON codec stay in the generated server and the client gets a handle
(docs/ARCHITECTURE.md decision 4). Ids are random so that one client cannot guess another's objects,
and the table is an LRU so a long session cannot grow memory without bound.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Any

__all__ = [
    "DEFAULT_CAPACITY",
    "HANDLE_PREFIX",
    "REPR_LIMIT",
    "HandleTable",
    "safe_repr",
    "safe_str",
    "type_name",
]

DEFAULT_CAPACITY = 256
HANDLE_PREFIX = "h_"
REPR_LIMIT = 200


def type_name(obj: object) -> str:
    """``module.QualName`` of ``obj``'s type: enough for a client to know what it holds."""
    cls = type(obj)
    module = getattr(cls, "__module__", None) or "builtins"
    qualname = getattr(cls, "__qualname__", None) or cls.__name__
    return f"{module}.{qualname}"


def safe_repr(obj: object, limit: int = REPR_LIMIT) -> str:
    """A repr capped at ``limit`` characters that never raises.

    Third-party ``__repr__`` methods can fail or be huge; a handle must still be returned.
    """
    try:
        text = repr(obj)
    except Exception as exc:  # any failing __repr__ must not break a call
        text = f"<{type_name(obj)} object (repr failed: {type(exc).__name__})>"
    if not isinstance(text, str):  # pragma: no cover - defensive, repr() enforces str
        text = f"<{type_name(obj)} object>"
    if len(text) > limit:
        text = text[: max(limit - 3, 0)] + "..."
    return text


def safe_str(obj: object, limit: int = REPR_LIMIT) -> str | None:
    """``str(obj)`` capped like ``safe_repr``; None when it fails (or gives no text)."""
    try:
        text = str(obj)
    except Exception:  # a failing __str__: the handle has its repr
        return None
    if not isinstance(text, str):  # pragma: no cover - defensive, str() enforces str
        return None
    return text[: max(limit - 3, 0)] + "..." if len(text) > limit else text


class HandleTable:
    """Thread-safe LRU mapping of handle ids to live Python objects.

    Both ``put`` and ``get`` mark an entry as most recently used; when the table is full the
    least recently used entry is evicted, so a handle still in use by the client survives.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, prefix: str = HANDLE_PREFIX) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._prefix = prefix
        self._items: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def capacity(self) -> int:
        """Most objects kept at once."""
        return self._capacity

    def put(self, obj: object) -> dict[str, Any]:
        """Store ``obj`` and return its public descriptor ``{"handle", "type", "repr"}``,
        with ``"text"`` (its ``str``) when that differs from its repr: what ``print`` shows
        of it (a version ``3.4.5`` whose repr is ``Version(major=3, ...)``)."""
        description = {"type": type_name(obj), "repr": safe_repr(obj)}
        text = safe_str(obj)
        if text is not None and text != description["repr"]:
            description["text"] = text
        with self._lock:
            handle_id = self._new_id()
            self._items[handle_id] = obj
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)
        return {"handle": handle_id, **description}

    def get(self, handle_id: str) -> object:
        """The object stored under ``handle_id``; ``KeyError`` if unknown or evicted."""
        with self._lock:
            try:
                obj = self._items[handle_id]
            except (KeyError, TypeError):
                raise KeyError(
                    f"unknown or expired handle {handle_id!r}: the object may have been "
                    f"evicted (the table keeps the {self._capacity} most recently used); "
                    "call the tool that produced it again"
                ) from None
            self._items.move_to_end(handle_id)
            return obj

    def holds_id(self, value: object) -> bool:
        """Whether ``value`` is the bare id of an object in this table.

        Clients and models often pass just the id of a handle (``"h_..."``) rather than the
        descriptor ``{"handle": id}`` they received; ids are random, so a text that is one
        of this table's ids was meant as that object.
        """
        return isinstance(value, str) and value.startswith(self._prefix) and value in self

    def __contains__(self, handle_id: object) -> bool:
        with self._lock:
            return handle_id in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        """Drop every stored object."""
        with self._lock:
            self._items.clear()

    def _new_id(self) -> str:
        """A fresh random id; the loop only guards against a (practically impossible) clash."""
        while True:
            handle_id = self._prefix + secrets.token_urlsafe(12)
            if handle_id not in self._items:
                return handle_id
