"""Arrays and functions of arrays as arguments, in a real environment with numpy: nested
lists with the documented dtype (codec ``numpy:float64``), and expressions that call numpy's
vectorised functions by name (runtime.expressions with the numpy module)."""

from __future__ import annotations

import shutil
from pathlib import Path

from science import run_json

RUNTIME = Path(__file__).resolve().parents[2] / "metaserver" / "runtime"

SCRIPT = r"""
import json
import numpy as np
from metaserver_runtime import HandleTable, decode, invoke

handles = HandleTable()
out = {}
floats = decode([[1, 2], [3, 4]], "numpy:float64", handles)
plain = decode([[1, 2], [3, 4]], "numpy", handles)
out["floats"] = [str(floats.dtype), list(floats.shape), floats.ndim]
out["plain"] = str(plain.dtype)
out["sized"] = [str(decode([1, 2], f"numpy:{t}", handles).dtype) for t in ("int16", "float32")]
out["scalars"] = [type(decode(v, c, handles)).__name__ for v, c in (
    (1234, "numpy"), (True, "numpy"), (2, "numpy:float64"), (2.5, "numpy")
)]
def spread(*args, **kwargs):
    named = sorted(f"{k}:{type(v).__name__}" for k, v in kwargs.items())
    return [type(a).__name__ for a in args] + named
out["spread"] = invoke(
    spread, ["*args", "**kwargs"], {"args": [[1, 2]], "kwargs": {"y": [[1.0], [2.0]], "n": 3}},
    handles, codecs={"args": "numpy:float64", "kwargs": "numpy"},
)
ragged = decode([[1, 2, 3], [4, 5]], "numpy:float64", handles)
out["ragged"] = [[type(r).__name__, str(r.dtype), len(r)] for r in ragged]
f = decode("exp(-x**2) + np.sqrt(x)", "expression:x@numpy", handles)
values = f(np.array([0.0, 1.0, 4.0]))
out["vectorised"] = [type(values).__name__, [round(float(v), 6) for v in values]]
g = decode("sum(x**2)", "expression:x@numpy", handles)
out["sum"] = float(g(np.array([1.0, 2.0])))
try:
    decode("x.T", "expression:x@numpy", handles)
except Exception as exc:
    out["refused"] = type(exc).__name__
big = decode({"shape": [32, 32, 15, 100], "fill": 1}, "numpy:int16", handles)
out["filled"] = [str(big.dtype), list(big.shape), int(big.sum())]
out["filled_refused"] = []
for bad in ({"shape": [10**5, 10**5], "fill": 0}, {"shape": [-1], "fill": 0},
            {"shape": [2], "fill": "a"}, {"shape": "2", "fill": 1}):
    try:
        decode(bad, "numpy", handles)
    except Exception as exc:
        out["filled_refused"].append(type(exc).__name__)
print(json.dumps(out))
"""


def test_arrays_with_dtype_and_numpy_expressions(science_python: Path, tmp_path: Path) -> None:
    shutil.copytree(RUNTIME, tmp_path / "metaserver_runtime")
    out = run_json(science_python, SCRIPT, tmp_path)
    assert out["floats"] == ["float64", [2, 2], 2]
    assert out["plain"].startswith("int")
    # the fixed-size item type a doc's array was built with (probe/array_values.py)
    assert out["sized"] == ["int16", "float32"]
    # a Python int stays one unless the docs named an item type (``seed: int | Generator``)
    assert out["scalars"] == ["int", "bool", "ndarray", "ndarray"]
    # ``IIDBootstrap(x, y=y, z=z)``: each item of ``*args`` and each value of ``**kwargs``
    assert out["spread"] == ["ndarray", "n:int", "y:ndarray"]
    # a list of rows of different lengths (wavelet coefficients per level): arrays, one a row
    assert out["ragged"] == [["ndarray", "float64", 3], ["ndarray", "float64", 2]]
    assert out["vectorised"] == ["ndarray", [1.0, 1.367879, 2.0]]
    assert out["sum"] == 5.0  # numpy's sum (the library's first), elementwise square
    assert out["refused"] == "CodecError"
    # an array too large for lists, as its shape and the value of every item
    assert out["filled"] == ["int16", [32, 32, 15, 100], 32 * 32 * 15 * 100]
    assert out["filled_refused"] == ["CodecError"] * 4  # too large, or not a shape
