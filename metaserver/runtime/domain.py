"""Result codecs for third-party types: pandas, sympy, networkx and pydantic values.

Each library is looked up in ``sys.modules`` and never imported here: a value of one of its
types can only exist if the library is already loaded. ``encode_domain`` returns plain
Python data (which ``to_json`` then encodes recursively) or ``NO_CODEC``.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["NO_CODEC", "encode_domain"]

NO_CODEC: Any = object()


def encode_domain(value: Any) -> Any:
    """The JSON-ready form of a pandas, sympy, networkx or pydantic value, or NO_CODEC."""
    module = (getattr(type(value), "__module__", None) or "").partition(".")[0]
    encoder = _BY_MODULE.get(module)
    if encoder is not None:
        result = encoder(value)
        if result is not NO_CODEC:
            return result
    elif "networkx" in sys.modules:  # a library's own Graph subclass lives in its module
        result = _networkx(value)
        if result is not NO_CODEC:
            return result
    pydantic = sys.modules.get("pydantic")
    base = getattr(pydantic, "BaseModel", None)
    if base is not None and isinstance(value, base):
        return value.model_dump(mode="json")
    return NO_CODEC


def _pandas(value: Any) -> Any:
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return NO_CODEC
    if isinstance(value, pandas.DataFrame):
        if _default_index(pandas, value.index):
            # Records: the shape most clients (and models) read best.
            return value.to_dict(orient="records")
        return {
            "columns": [str(c) for c in value.columns],
            "index": value.index.tolist(),
            "data": value.to_numpy().tolist(),
        }
    if isinstance(value, pandas.Series):
        if _default_index(pandas, value.index):
            return value.tolist()
        return {"name": value.name, "index": value.index.tolist(), "data": value.tolist()}
    if isinstance(value, pandas.Timestamp):
        return value.isoformat()
    if isinstance(value, pandas.Timedelta):
        return value.total_seconds()
    return NO_CODEC


def _default_index(pandas: Any, index: Any) -> bool:
    """A 0..n-1 RangeIndex, which records and plain lists can leave out."""
    return (
        isinstance(index, pandas.RangeIndex)
        and index.start == 0
        and index.step == 1
        and index.name is None
    )


def _sympy(value: Any) -> Any:
    sympy = sys.modules.get("sympy")
    if sympy is None:
        return NO_CODEC
    if isinstance(value, sympy.Basic):
        if value.is_Integer:
            return int(value)
        if value.is_Float:
            return float(value)
        if value in (sympy.true, sympy.false):
            return bool(value)
    elif not isinstance(value, sympy.MatrixBase):
        return NO_CODEC
    return {"text": str(value), "latex": sympy.latex(value)}


def _networkx(value: Any) -> Any:
    networkx = sys.modules.get("networkx")
    if networkx is None or not isinstance(value, networkx.Graph):
        return NO_CODEC
    edges = value.edges(keys=True, data=True) if value.is_multigraph() else value.edges(data=True)
    return {
        "directed": value.is_directed(),
        "multigraph": value.is_multigraph(),
        "nodes": [{**attrs, "id": node} for node, attrs in value.nodes(data=True)],
        "edges": [{**edge[-1], "source": edge[0], "target": edge[1]} for edge in edges],
    }


_BY_MODULE = {"pandas": _pandas, "sympy": _sympy, "networkx": _networkx}
