"""value_examples: a function's documented arguments built by earlier lines, as steps."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from metaserver.agents.analysis.probe.probe_values import value_examples

SOURCE = '''
class Dot:
    def __init__(self, x, y):
        self.x, self.y = x, y


def make(x):
    return Dot(x, x)


def far(a, b, scale=1):
    """Distance.

    >>> here = Dot(0, 0)
    >>> far(here, Dot(3, 4))
    5.0
    >>> far(here, there)
    1.0
    >>> far(make(2), Dot(2, 2), scale=2)
    0.0
    >>> far(1, 2)
    3
    >>> gap = far(here, Dot(1, 0))
    """
    return scale * ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5
'''


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "valuefx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("valuefx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["valuefx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["valuefx"]


def test_arguments_built_by_the_packages_callables_become_steps(module: ModuleType) -> None:
    func = module.far
    signature = inspect.signature(func)
    found = value_examples(func, module, func.__doc__, signature, {"a", "b", "scale"}, "valuefx")

    first, second, kept = found
    # an assigned call is an example without an output
    assert not kept["has_expected"] and [s["into"] for s in kept["session"]] == ["a", "b"]
    assert (first["expected"], first["line"], first["arguments"]) == (
        5.0,
        "far(here, Dot(3, 4))",
        {},
    )
    assert [(s["line"], s["into"], s["arguments"]) for s in first["session"]] == [
        ("here = Dot(0, 0)", "a", {"x": 0, "y": 0}),
        ("far(here, Dot(3, 4))", "b", {"x": 3, "y": 4}),
    ]
    assert first["session"][0]["_id"] == id(module.Dot)
    # a factory function builds a value too; literal arguments stay arguments
    assert second["arguments"] == {"scale": 2}
    assert [s["_id"] for s in second["session"]] == [id(module.make), id(module.Dot)]
    # ``there`` was never built, and far(1, 2) is a literal call (examples_for has it)


def test_a_readme_call_counts_only_when_it_resolves_to_the_function(module: ModuleType) -> None:
    readme = ">>> from valuefx import Dot\n>>> far(Dot(0, 0), Dot(0, 1))\n1.0\n"
    signature = inspect.signature(module.far)
    exposed = {"a", "b", "scale"}
    # the README never imported ``far``: another library's far, as far as it can tell
    assert value_examples(module.far, None, readme, signature, exposed, "valuefx", True) == []
    imported = ">>> from valuefx import far\n" + readme
    (found,) = value_examples(module.far, None, imported, signature, exposed, "valuefx", True)
    assert found["expected"] == 1.0


def test_an_unbound_alias_of_the_package_and_a_printed_call(module: ModuleType) -> None:
    # Docs often import their package as an alias in a setup they never show.
    text = (
        ">>> a = vf.Dot(0, 0)\n>>> print(vf.far(a, vf.Dot(0, 2)))\n2.0\n"
        ">>> import os as np\n>>> np.far(a, a)\n0.0\n"  # a bound name is what it is bound to
    )
    signature = inspect.signature(module.far)
    exposed = {"a", "b", "scale"}
    (found,) = value_examples(module.far, None, text, signature, exposed, "valuefx", True)
    # printed: the call is an example, its text no expected value
    assert not found["has_expected"]
    assert [s["into"] for s in found["session"]] == ["a", "b"]


def test_names_bound_to_literals_are_put_back_into_the_calls(module: ModuleType) -> None:
    from metaserver.agents.analysis.probe.probe_docs import examples_for

    text = (
        ">>> xy = (3, 4)\n>>> far(Dot(0, 0), Dot(*xy))\n5.0\n"
        ">>> n = 2\n>>> far(Dot(n, n), Dot(n, 0), scale=n)\n4.0\n"
    )
    signature = inspect.signature(module.far)
    found = value_examples(module.far, module, text, signature, {"a", "b", "scale"}, "valuefx")
    # Dot(*xy) stays out of reach (a starred argument); n is put back everywhere
    (second,) = found
    assert second["arguments"] == {"scale": 2}
    assert [s["arguments"] for s in second["session"]] == [{"x": 2, "y": 2}, {"x": 2, "y": 0}]
    plain = ">>> pair = [1, 2]\n>>> far(*pair)\n>>> a = 1\n>>> far(a, 2)\n3\n"
    (literal,) = examples_for(module.far, {"far"}, plain, signature, {"a", "b", "scale"})
    assert (literal["arguments"], literal["expected"]) == ({"a": 1, "b": 2}, 3)


def test_an_array_built_from_a_literal_is_that_literal(module: ModuleType) -> None:
    pytest.importorskip("numpy")
    from metaserver.agents.analysis.probe.probe_docs import examples_for

    text = (
        ">>> import numpy as np\n>>> A = np.array([[1, 2], [3, 4]])\n>>> far(A, np.array([0]))\n7\n"
        ">>> import os as np\n>>> far(np.array([5]), 1)\n"  # np is no longer numpy here
    )
    signature = inspect.signature(module.far)
    (found,) = examples_for(module.far, {"far"}, text, signature, {"a", "b", "scale"})
    # the numpy codec's JSON form of an array is its nested lists
    assert (found["arguments"], found["expected"]) == ({"a": [[1, 2], [3, 4]], "b": [0]}, 7)


HELD = '''
class Shape:
    def __init__(self, size):
        self.size = size


Shape.UNIT = Shape(1)
Shape.LABEL = "unit"


def grow(shape, by=1):
    """Bigger.

    >>> grow(Shape.UNIT, by=2)
    3
    >>> grow(Shape.LABEL)
    2
    """
    return shape.size + by
'''


def test_an_instance_the_class_holds_is_an_argument_by_name(tmp_path: Path) -> None:
    path = tmp_path / "heldfx.py"
    path.write_text(HELD)
    spec = importlib.util.spec_from_file_location("heldfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["heldfx"] = loaded
    try:
        spec.loader.exec_module(loaded)
        func = loaded.grow
        found = value_examples(
            func, loaded, func.__doc__, inspect.signature(func), {"shape", "by"}, "heldfx"
        )
    finally:
        del sys.modules["heldfx"]
    # Shape.LABEL holds a string, not a Shape: no example of it
    [example] = found
    assert example["arguments"] == {"shape": {"attribute": "UNIT"}, "by": 2}
    assert example["expected"] == 3 and example["session"] == []
    assert example["_held"] == {"shape": loaded.Shape}
