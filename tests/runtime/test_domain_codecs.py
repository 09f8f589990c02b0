"""numpy, pandas, sympy, pint and networkx codecs, both ways, in a real uv environment.

These libraries are not metaserver dependencies, so the runtime is exercised where it runs
in production: copied (as ``metaserver_runtime``) beside a script run by an environment that
has them. The environment is built once per session from the configured index or uv cache.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from science import run_json

RUNTIME = Path(__file__).resolve().parents[2] / "metaserver" / "runtime"

SCRIPT = r"""
import json, math
import numpy as np, pandas as pd, sympy, networkx as nx, pint
from hypothesis import given, settings, strategies as st
from metaserver_runtime import HandleTable, decode, to_json

handles = HandleTable()
out = {}

def both(value, codec):
    encoded = json.loads(json.dumps(to_json(value, handles), allow_nan=False))
    return encoded, decode(encoded, codec, handles)

# numpy: arrays of any shape and scalars, property-based.
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(finite, min_size=2, max_size=2), min_size=1, max_size=6))
def arrays(rows):
    value = np.array(rows)
    _, back = both(value, "numpy")
    assert back.shape == value.shape and np.array_equal(back, value)
    _, scalar = both(np.float64(rows[0][0]), "numpy")
    assert scalar == rows[0][0]
arrays()
out["numpy"] = True

frame = pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]})
encoded, back = both(frame, "dataframe")
out["frame_json"] = encoded
out["frame_equal"] = bool(back.equals(frame))
indexed = pd.DataFrame({"v": [1.0, 2.0]}, index=["x", "y"])
_, back = both(indexed, "dataframe")
out["indexed_equal"] = bool(back.equals(indexed))
gaps = pd.DataFrame({"v": [1.5, np.nan], "w": ["nan", "x"], "z": [np.inf, 2.0]})
encoded, back = both(gaps, "dataframe")
out["gaps_json"] = encoded
out["gaps_equal"] = bool(back.equals(gaps))
_, back = both(pd.Series([np.nan, 1.0], index=["a", "b"]), "series")
out["series_gap"] = [str(back.dtype), bool(np.isnan(back["a"]))]
_, back = both(np.array([[1.0, np.nan], [np.inf, 2.0]]), "numpy")
out["array_gaps"] = [str(back.dtype), bool(np.isnan(back[0, 1])), bool(np.isinf(back[1, 0]))]
out["words"] = str(decode(["nan", "a"], "numpy", handles).dtype.kind)
series = pd.Series([1.0, 2.5, 4.0])
encoded, back = both(series, "series")
out["series_json"] = encoded
out["series_equal"] = bool(back.equals(series))

x = sympy.Symbol("x")
expr = sympy.sin(x) ** 2 + x / 3
encoded, back = both(expr, "sympy")
out["sympy_json"] = encoded
out["sympy_equal"] = sympy.simplify(back - expr) == 0
out["sympy_parse"] = str(decode("integrate(x**2, x)", "sympy", handles))
out["sympy_integer"] = to_json(sympy.Integer(7), handles)

quantity = decode("3 meter / second", "pint:pint:Quantity", handles)
out["pint_text"] = str(quantity.to("km/h"))
descriptor = to_json(quantity, handles)  # no JSON codec: a handle
out["pint_handle_type"] = descriptor["type"]
out["pint_same"] = decode(descriptor, "pint:pint:Quantity", handles) is quantity
out["pint_pair"] = str(decode([2, "kg"], "pint:pint:Quantity", handles))

graph = nx.Graph()
graph.add_edge("a", "b", weight=2.0)
graph.add_node("c", colour="red")
encoded, back = both(graph, "networkx")
out["graph_json"] = encoded
out["graph_equal"] = nx.utils.graphs_equal(back, graph)
directed = nx.DiGraph([(1, 2), (2, 3)])
_, back = both(directed, "networkx")
out["digraph_equal"] = back.is_directed() and sorted(back.edges) == [(1, 2), (2, 3)]
out["edge_list"] = sorted(decode([[1, 2], [2, 3]], "networkx", handles).edges)
print(json.dumps(out))
"""


@pytest.mark.integration
def test_domain_codecs_round_trip(science_python: Path, tmp_path: Path) -> None:
    shutil.copytree(RUNTIME, tmp_path / "metaserver_runtime")
    out = run_json(science_python, SCRIPT, tmp_path)
    assert out["numpy"]
    assert out["frame_json"] == [{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}]  # records
    assert out["frame_equal"] and out["indexed_equal"] and out["series_equal"]
    # NaN and infinities travel as text and come back as the float columns they were; a
    # column of words that holds "nan" stays words
    assert out["gaps_json"][1] == {"v": "nan", "w": "x", "z": 2.0}
    assert out["gaps_equal"] and out["series_gap"] == ["float64", True]
    assert out["array_gaps"] == ["float64", True, True] and out["words"] == "U"
    assert out["series_json"] == [1.0, 2.5, 4.0]
    assert out["sympy_json"] == {
        "text": "x/3 + sin(x)**2",
        "latex": r"\frac{x}{3} + \sin^{2}{\left(x \right)}",
    }
    assert out["sympy_equal"]
    assert out["sympy_parse"] == "x**3/3"
    assert out["sympy_integer"] == 7
    assert out["pint_text"] == "10.8 kilometer / hour"
    assert out["pint_handle_type"].startswith("pint.")
    assert out["pint_same"]
    assert out["pint_pair"] == "2 kilogram"
    assert out["graph_json"]["edges"] == [{"weight": 2.0, "source": "a", "target": "b"}]
    assert out["graph_equal"] and out["digraph_equal"]
    assert out["edge_list"] == [[1, 2], [2, 3]]
