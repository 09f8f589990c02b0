"""pandas tables in the probe: a docstring's "DataFrame" types a parameter, and a table a
session builds from literals is the dataframe codec's JSON form (probe/frames.py).

pandas is no metaserver dependency: the probe helper runs where it runs in production, in
an environment that has it (``science_python``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from science import PROBE, PROBE_PRELUDE, run_json

SCRIPT = (
    PROBE_PRELUDE
    + r"""
import pandas as pd
from pandas import Series
from metaserver_probe.examples import Literals
from metaserver_probe.doc_types import documented_annotation
from metaserver_probe.frames import documented_frame, frame_literal

def literal(source, namespace):
    node = frame_literal(ast.parse(source, mode="eval").body, namespace)
    return None if node is None else ast.literal_eval(node)

namespace = {"pd": pd, "Series": Series, "np": None}
out = {
    "frame": literal("pd.DataFrame({'v_mp': 8, 'i_mp': 5}, index=[0])", namespace),
    "rows": literal("pd.DataFrame([[1, 2.5]], columns=['a', 'b'])", namespace),
    "series": literal("Series([1.0, 2.0], index=['x', 'y'], name='p')", namespace),
    "stamp": literal("pd.DataFrame([[1]], index=[pd.Timestamp('2020-01-01')])", namespace),
    "names": literal("pd.DataFrame(data)", namespace),
    "bad": literal("pd.DataFrame([[1, 2]], columns=['only'])", namespace),
    "other": literal("frames.DataFrame([[1]])", {"frames": json}),
    "types": [
        getattr(documented_frame(t), "__name__", None)
        for t in ("DataFrame", "pandas.DataFrame or tuple of DataFrame", "pd.Series",
                  "time series", "float or DataFrame", ":class:`~pandas.DataFrame`",
                  ":py:class:`pandas.DataFrame`")
    ],
}
# "data: DataFrame" (no space before the colon) is read as a description: all type words
described = {"data": "DataFrame or tuple of DataFrame", "other": "The values to scale"}
out["described"] = [
    getattr(documented_annotation(n, {}, described, json), "__name__", None)
    for n in ("data", "other")
]
literals = Literals(namespace)
statement = ast.parse("data = pd.DataFrame({'v': [1, 2]})").body[0]
literals.note(statement)
call = literals.inline(ast.parse("system.scale(data)", mode="eval").body)
out["inlined"] = ast.literal_eval(call.args[0])
print(json.dumps(out))
"""
)


@pytest.mark.integration
def test_tables_in_words_and_built_from_literals(science_python: Path, tmp_path: Path) -> None:
    out = run_json(science_python, SCRIPT, tmp_path, str(PROBE))
    # split orient: what runtime/decode.py's dataframe codec builds a table from
    assert out["frame"] == {"index": [0], "columns": ["v_mp", "i_mp"], "data": [[8, 5]]}
    assert out["rows"] == {"index": [0], "columns": ["a", "b"], "data": [[1, 2.5]]}
    assert out["series"] == {"data": [1.0, 2.0], "index": ["x", "y"], "name": "p"}
    # a timestamp label has no JSON form; a name is no literal; pandas refuses a bad
    # shape; another module's DataFrame is not pandas's
    assert out["stamp"] is None and out["names"] is None and out["bad"] is None
    assert out["other"] is None
    assert out["types"] == [
        "DataFrame",
        "DataFrame",
        "Series",
        None,
        None,
        "DataFrame",
        "DataFrame",
    ]
    assert out["described"] == ["DataFrame", "_empty"]
    assert out["inlined"] == {"index": [0, 1], "columns": ["v"], "data": [[1], [2]]}
