"""The attributes of a result kept as a handle that its documentation reads.

``res = arch_model(y).fit()`` then ``res.params``; ``w = Wavelet("db1")`` then
``w.dec_lo``: a tool whose documentation or tests read such attributes of its result
returns them beside the handle, as ``fields`` (docs/ARCHITECTURE.md decision 39). The
client sees what a scientist reads of the object, and validation compares them with the
values the repository asserts. Only the standard library: copied into generated servers.
"""

from __future__ import annotations

import inspect
from typing import Any

from .codecs import cap_result, to_json
from .handles import HandleTable

__all__ = ["FIELD_BYTES", "with_fields"]

FIELD_BYTES = 100_000
"""One field's JSON at most; a larger one comes back as a truncation notice."""


def with_fields(result: Any, names: list[str], handles: HandleTable, max_bytes: int) -> Any:
    """``result`` with ``fields`` (each named public attribute's JSON value) when it is a
    handle descriptor; an attribute the object lacks, or that raises, is left out, and so
    is a method (a call of it is a tool of its own)."""
    if not names or not _is_handle(result):
        return result
    try:
        obj = handles.get(result["handle"])
    except KeyError:
        return result
    fields: dict[str, Any] = {}
    spent = 0
    for name in names:
        if not name.isidentifier() or name.startswith("_") or name in fields:
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a property that refuses (not fitted yet): nothing to show
            continue
        if inspect.ismethod(value) or inspect.isbuiltin(value):
            continue
        try:
            encoded = cap_result(to_json(value, handles), min(FIELD_BYTES, max_bytes))
        except (TypeError, ValueError, RecursionError):
            continue
        spent += len(repr(encoded))
        if spent > max_bytes:
            break
        fields[name] = encoded
    return {**result, "fields": fields} if fields else result


def _is_handle(result: Any) -> bool:
    return isinstance(result, dict) and isinstance(result.get("handle"), str) and "repr" in result
