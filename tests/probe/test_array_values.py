"""Arrays a session line builds with numpy's functions (probe/array_values.py): set as a
receiver's attributes, they are setup steps whose setter gives the callable an array again;
a line that unpacks a method's result is that method's example."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from probe_modules import guided_module

from metaserver.probe.array_values import array_value
from metaserver.probe.members import describe_class
from metaserver.probe.script import name_steps

SOURCE = """
import numpy as np


class Chain:
    def __init__(self, n_states):
        self.n_states = n_states
        self.start_ = None
        self.weights_ = None

    def sample(self, n):
        if self.start_ is None or not hasattr(self.weights_, "shape"):
            raise ValueError("not set up")
        return np.zeros((n, 2)), np.zeros(n, dtype=int)
"""

GUIDE = """
>>> import numpy as np
>>> c = Chain(2)
>>> c.start_ = np.array([0.5, 0.5])
>>> c.weights_ = np.tile(np.identity(2), (3, 1, 1))
>>> X, Z = c.sample(4)
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    with guided_module(tmp_path, "chainfx", SOURCE, [GUIDE]) as loaded:
        yield loaded


def listed(module: ModuleType) -> dict[str, dict[str, Any]]:
    described = describe_class(module.Chain, "Chain", module, True, "chainfx")
    candidates = [c for c, _, _ in described if c is not None]
    name_steps(candidates, {id(module.Chain): candidates[0]})
    return {c["target"]: c for c in candidates}


def test_an_unpacked_call_after_array_setups_is_the_methods_example(module: ModuleType) -> None:
    by_target = listed(module)
    [example] = by_target["chainfx:Chain.sample"]["examples"]
    assert example["arguments"] == {"n": 4} and not example["has_expected"]
    steps = [(s["target"], s.get("assign"), s["arguments"]) for s in example["session"]]
    identity = [[1.0, 0.0], [0.0, 1.0]]
    assert steps == [
        ("chainfx:Chain", None, {"n_states": 2}),
        ("chainfx:Chain.start_", "start_", {"value": [0.5, 0.5]}),
        ("chainfx:Chain.weights_", "weights_", {"value": [identity, identity, identity]}),
    ]


def test_an_array_setter_decodes_its_value_as_an_array(module: ModuleType) -> None:
    setters = {t: c for t, c in listed(module).items() if c.get("assigns")}
    assert set(setters) == {"chainfx:Chain.start_", "chainfx:Chain.weights_"}
    for setter in setters.values():
        value = setter["parameters"][1]
        assert (value["name"], value["codec"]) == ("value", "numpy:float64")
        assert value["json_schema"]["type"] == "array"


def _value(line: str) -> Any:
    statement = ast.parse(line).body[0]
    assert isinstance(statement, ast.Assign)
    return statement.value


@pytest.mark.parametrize(
    "line, expected",
    [
        ("x = np.arange(3)", ([0, 1, 2], "numpy:int64")),
        ("x = np.eye(2, dtype='bool')", ([[True, False], [False, True]], "numpy:bool")),
        ("x = np.full((2,), 0.5, dtype='float32')", ([0.5, 0.5], "numpy:float32")),
        # the item type a numpy name gives, and an array method over numpy's result
        (
            "x = np.arange(6, dtype=np.int16).reshape((2, 3))",
            ([[0, 1, 2], [3, 4, 5]], "numpy:int16"),
        ),
        ("x = np.diag([1, 2]).astype(np.float32)", ([[1.0, 0.0], [0.0, 2.0]], "numpy:float32")),
        ("x = np.zeros(2).tofile('w')", None),  # an array method that writes a file
        ("x = data.reshape((2, 3))", None),  # an array numpy did not build here
        ("x = [1, 2]", None),  # no array written: a literal stays a literal
        ("x = np.ones(10**9)", None),  # a size past what may be made here
        # an array of one value too large for lists: its shape and value (runtime makes it)
        ("x = np.ones(100_000)", ({"shape": [100000], "fill": 1}, "numpy:float64")),
        (
            "x = np.ones((32, 32, 15, 100), dtype=np.int16)",
            ({"shape": [32, 32, 15, 100], "fill": 1}, "numpy:int16"),
        ),
        ("x = np.zeros(shape=(200, 100))", ({"shape": [200, 100], "fill": 0}, "numpy:float64")),
        ("x = np.full((200, 100), 7)", ({"shape": [200, 100], "fill": 7}, "numpy:int64")),
        ("x = np.full((2, 3), 7)", ([[7, 7, 7], [7, 7, 7]], "numpy:int64")),  # small: lists
        ("x = np.full((200, 100), np.nan)", None),  # no fill JSON carries
        ("x = np.ones((200, n))", None),  # a shape the line does not write
        ("x = np.load('w.npy')", None),  # reads a file
        ("x = np.random.rand(3)", None),  # not numpy's own namespace: and random
        ("x = np.array([np.nan])", None),  # no JSON literal
        ("x = np.array(['a', 'b'])", None),  # not numbers
        ("x = np.tile(unknown, 2)", None),
    ],
)
def test_what_a_line_makes_an_array_of(line: str, expected: Any) -> None:
    node = _value(line)
    assert array_value(node, node, {"np": np}) == expected


IMAGE = """
import numpy as np


def volume(data, affine):
    if data.dtype != np.int16:
        raise ValueError(f"data has type {data.dtype}: pass an explicit dtype")
    return int(data.sum()) + int(np.trace(affine))
"""

IMAGE_GUIDE = """
>>> import numpy as np
>>> import imagefx
>>> data = np.arange(6, dtype=np.int16).reshape((2, 3))
>>> imagefx.volume(data, np.diag([1, 2, 3, 1]))
22
"""


def test_an_argument_numpy_built_is_an_example_of_its_item_type(tmp_path: Path) -> None:
    from metaserver.probe.members import describe_callable

    with guided_module(tmp_path, "imagefx", IMAGE, [IMAGE_GUIDE]) as module:
        candidate, _, _ = describe_callable(module.volume, "volume", module, True)
    assert candidate is not None
    (example,) = [e for e in candidate["examples"] if e["has_expected"]]
    assert example["arguments"] == {
        "data": [[0, 1, 2], [3, 4, 5]],
        "affine": [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 1]],
    }
    assert example["expected"] == 22 and "_arrays" not in example
    codecs = {p["name"]: p["codec"] for p in candidate["parameters"]}
    # the docs' 16-bit integers again, not the 64-bit ones their JSON would make
    assert codecs == {"data": "numpy:int16", "affine": "numpy:int64"}


WRAPPER = '''
import numpy as np


def cumsum(a, axis=None):
    """numpy's cumsum, wrapped (its docstring is numpy's).

    >>> import numpy as np
    >>> np.cumsum([[1, 2], [3, 4]])
    array([ 1,  3,  6, 10])
    """
    return np.cumsum(a, axis=axis)
'''


def test_a_documented_call_numpy_could_build_stays_the_call(tmp_path: Path) -> None:
    from metaserver.probe.members import describe_callable

    with guided_module(tmp_path, "wrapfx", WRAPPER, []) as module:
        candidate, why, _ = describe_callable(module.cumsum, "cumsum", module, True)
    # the call is the example (it crashed the probe when numpy's result replaced it)
    assert candidate is not None, why
    (example,) = candidate["examples"]
    assert example["arguments"] == {"a": [[1, 2], [3, 4]]}
    assert example["has_expected"]


SPREAD = """
import numpy as np


def resample(*args, seed=None, **kwargs):
    kinds = {str(a.dtype) for a in (*args, *kwargs.values())}
    return sorted(kinds) + [type(seed).__name__]
"""

SPREAD_GUIDE = """
>>> import numpy as np
>>> import spreadfx
>>> x = np.arange(4, dtype=np.int16)
>>> y = np.arange(2, dtype=np.int16)
>>> spreadfx.resample(x, y=y, seed=3)
['int16', 'int']
"""


def test_arrays_numpy_built_into_args_and_kwargs_keep_their_item_type(tmp_path: Path) -> None:
    from metaserver.probe.members import describe_callable

    with guided_module(tmp_path, "spreadfx", SPREAD, [SPREAD_GUIDE]) as module:
        candidate, _, _ = describe_callable(module.resample, "resample", module, True)
    assert candidate is not None
    (example,) = [e for e in candidate["examples"] if e["has_expected"]]
    assert example["arguments"] == {"args": [[0, 1, 2, 3]], "seed": 3, "kwargs": {"y": [0, 1]}}
    codecs = {p["name"]: p["codec"] for p in candidate["parameters"]}
    # ``IIDBootstrap(x, y=y, z=z)``: the runtime decodes each item by the parameter's codec
    assert codecs["args"] == "numpy:int16" and codecs["kwargs"] == "numpy:int16"


PLAIN = '''
def scale(x):
    """Twice ``x``.

    >>> scale(1)
    2
    >>> scale(2)
    4
    >>> scale(3)
    6
    >>> scale(4)
    8
    >>> scale(5)
    10
    >>> scale(6)
    12
    """
    return 2 * x
'''

PLAIN_README = """
>>> import plainfx
>>> plainfx.scale(9)
"""


def test_the_docs_plain_call_keeps_the_last_place_among_examples_that_show_values(
    tmp_path: Path,
) -> None:
    # ``dcmread("CT_small.dcm")`` (no output) after five calls that show values: a value
    # may prove unreadable, and the plain call is then the one that runs
    from metaserver.probe.members import describe_callable

    with guided_module(tmp_path, "plainfx", PLAIN, [PLAIN_README]) as module:
        candidate, _, _ = describe_callable(module.scale, "scale", module, True)
    assert candidate is not None
    examples = candidate["examples"]
    assert len(examples) == 5 and sum(e["has_expected"] for e in examples) == 4
    assert examples[-1]["arguments"] == {"x": 9} and not examples[-1]["has_expected"]
