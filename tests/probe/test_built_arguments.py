"""value_examples: a function's documented arguments built by earlier lines, as steps."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe.built_arguments import value_examples

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
    # printed: the call is an example, its text the expected text (text.py)
    assert (found["wrapper"], found["expected"]) == ("str", "2.0")
    assert [s["into"] for s in found["session"]] == ["a", "b"]


def test_a_method_of_a_value_the_session_made_is_not_the_function(module: ModuleType) -> None:
    # ``e.series(x, 0, 10)`` after ``e = ...``: the expression's own method, never the
    # package's function of that name reached through an unbound alias.
    text = ">>> e = vf.Dot(0, 0)\n>>> print(e.far(vf.Dot(0, 2)))\n2.0\n"
    signature = inspect.signature(module.far)
    exposed = {"a", "b", "scale"}
    assert value_examples(module.far, None, text, signature, exposed, "valuefx", True) == []


def test_names_bound_to_literals_are_put_back_into_the_calls(module: ModuleType) -> None:
    from metaserver.probe.examples import examples_for

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


def test_a_value_changed_after_it_was_built_is_expected_never_blamed(module: ModuleType) -> None:
    # ``G = Graph()``, ``G.add_edge(...)``, then the documented call: the steps rebuild the
    # object as first built, so the shown output is a value validation compares, never the
    # repository's own line (no evidence against it when it differs); the same call with no
    # value to expect comes after it, for when the line the replay skips mattered.
    text = (
        ">>> here = Dot(0, 0)\n>>> far(here, Dot(3, 4))\n5.0\n"
        ">>> here.x = 3\n>>> far(here, Dot(3, 4))\n4.0\n"
        ">>> there = Dot(1, 1)\n>>> there.shift(2)\n>>> far(there, Dot(3, 3))\n0.0\n"
        ">>> there = Dot(3, 3)\n>>> far(there, Dot(3, 3))\n0.0\n"
    )
    signature = inspect.signature(module.far)
    found = value_examples(module.far, module, text, signature, {"a", "b", "scale"}, "valuefx")
    expected = [(f.get("line"), f["expected"]) for f in found]
    # ``here.x = 3`` unbinds ``here`` (an assignment to it): that call is no example at all
    assert expected == [
        ("far(here, Dot(3, 4))", 5.0),
        (None, 0.0),  # after ``there.shift(2)``
        ("far(there, Dot(3, 3))", 0.0),  # ``there`` rebuilt: exact again
        (None, None),  # after ``there.shift(2)``, proving nothing
    ]
    assert found[1]["session"][0]["line"] == found[3]["session"][0]["line"] == "there = Dot(1, 1)"
    # each still builds its objects (the tool is tried), only without the documented value
    assert all(len(f["session"]) == 2 for f in found)


def test_an_array_built_from_a_literal_is_that_literal(module: ModuleType) -> None:
    pytest.importorskip("numpy")
    from metaserver.probe.examples import examples_for

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


OBJECTS = '''
class Signal:
    def __init__(self, samples):
        self.samples = samples

    def __add__(self, other):
        return Signal(self.samples + other.samples)


def gain(signal, factor=2.0):
    """The largest sample times ``factor``.

    Parameters
    ----------
    signal : Signal
        The signal.
    factor : float
        The gain.
    """
    return max(signal.samples) * factor


def spread(signals):
    """Largest minus smallest sample over the signals."""
    values = [v for s in signals for v in s.samples]
    return max(values) - min(values)


def untyped(thing):
    """Nothing says what ``thing`` is."""
    return thing
'''

GUIDE = """
>>> gain(sig, 3.0)
9.0
>>> untyped(sig)
1
>>> for ready in range(2):
...     pass
>>> gain(ready)
4.0
>>> a = Signal([1.0, 2.0])
>>> b = Signal([4.0, 0.5])
>>> spread([a, b])
3.5
>>> total = a + b
>>> spread([a, b, total])
3.5
>>> spread([a, other])
0.0
"""


@pytest.fixture
def objects(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "objfx.py"
    path.write_text(OBJECTS)
    spec = importlib.util.spec_from_file_location("objfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["objfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["objfx"]


def _examples(module: ModuleType, name: str) -> list[dict[str, object]]:
    func = getattr(module, name)
    signature = inspect.signature(func)
    exposed = set(signature.parameters)
    return value_examples(func, module, GUIDE, signature, exposed, "objfx", guide=True)


def test_a_name_the_docs_never_built_is_built_by_its_types_constructor(
    objects: ModuleType,
) -> None:
    # ``signal : Signal`` types the parameter: ``sig`` becomes a typed step of Signal, and
    # the documented 9.0 belongs to a ``sig`` we do not have. ``ready`` was bound by a loop.
    [example] = _examples(objects, "gain")
    assert example["arguments"] == {"factor": 3.0}
    assert not example["has_expected"]
    [step] = example["session"]
    assert step["typed"] and step["into"] == "signal" and step["arguments"] == {}
    assert step["_id"] == id(objects.Signal) and step["line"] == "sig = Signal(...)"
    # nothing types ``thing``: no example
    assert _examples(objects, "untyped") == []


def test_a_list_of_built_values_is_one_step_per_item(objects: ModuleType) -> None:
    exact, shortened = _examples(objects, "spread")
    assert exact["expected"] == 3.5 and exact["line"] == "spread([a, b])"
    steps = [(s["line"], s["into"], s["item"]) for s in exact["session"]]
    assert steps == [
        ("a = Signal([1.0, 2.0])", "signals", 0),
        ("b = Signal([4.0, 0.5])", "signals", 1),
    ]
    # ``total = a + b`` is left out, and the shown value with it; ``other`` was never built
    # and no type names it: that line gives nothing
    assert not shortened["has_expected"]
    assert [s["item"] for s in shortened["session"]] == [0, 1]


NET_SOURCE = '''
class Net:
    def __init__(self):
        self.links = {}

    def link(self, a, b, weight=1):
        self.links.setdefault(a, {})[b] = weight

    def _secret(self, a):
        self.links.pop(a, None)

    def tag(self, a, **labels):
        self.links.setdefault(a, {}).update(labels)


def route(net, a, b):
    """The path from a to b.

    >>> net = Net()
    >>> net.link("A", "B", weight=4)
    >>> net.link("B", "D")
    >>> route(net, "A", "D")
    ['A', 'B', 'D']
    >>> other = Net()
    >>> other.link("A", "B")
    >>> other.link(net, "C")
    >>> route(other, "A", "B")
    ['A', 'B']
    >>> third = Net()
    >>> third._secret("A")
    >>> route(third, "A", "A")
    ['A']
    >>> fourth = Net()
    >>> fourth.tag("A")
    >>> fourth.tag("B", color="red")
    >>> route(fourth, "B", "B")
    ['B', 'B']
    """
    return [a, b]
'''


@pytest.fixture
def net(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "netfx.py"
    path.write_text(NET_SOURCE)
    spec = importlib.util.spec_from_file_location("netfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["netfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["netfx"]


def test_setup_calls_of_a_built_argument_become_its_setup_steps(net: ModuleType) -> None:
    # ``net.link(...)`` with literal arguments: a setup step ``on`` the step that built
    # ``net``, so the replay rebuilds the object as the example had it (exact output).
    func = net.route
    signature = inspect.signature(func)
    found = value_examples(func, net, func.__doc__, signature, {"net", "a", "b"}, "netfx")
    first = found[0]
    assert (first["line"], first["expected"]) == ('route(net, "A", "D")', ["A", "B", "D"])
    steps = [(s["line"], s.get("into"), s.get("on"), s["member"]) for s in first["session"]]
    assert steps == [
        ("net = Net()", "net", None, None),
        ('net.link("A", "B", weight=4)', None, 0, "link"),
        ('net.link("B", "D")', None, 0, "link"),
    ]
    assert first["session"][1]["arguments"] == {"a": "A", "b": "B", "weight": 4}
    assert first["session"][1]["_id"] == id(net.Net)  # named by script
    # A setup call given a built object (not a literal), or a private method: a change the
    # replay cannot repeat, so the documented value is one to compare, never the
    # repository's line, and the same call follows with none. ``**labels`` is no parameter
    # of a tool: that setup cannot be repeated either.
    rest: dict[tuple[object, ...], list[tuple[object, object]]] = {}
    for e in found[1:]:
        rest.setdefault(tuple(e["arguments"].values()), []).append((e.get("line"), e["expected"]))
    assert rest[("A", "B")] == [(None, ["A", "B"]), (None, None)]
    assert rest[("A", "A")] == [(None, ["A"]), (None, None)]
    assert rest[("B", "B")] == [(None, ["B", "B"]), (None, None)]
    assert all(s.get("on") is None for e in found[1:] for s in e["session"][:1])


def test_setup_steps_are_named_by_their_class_constructors_target(net: ModuleType) -> None:
    from metaserver.probe.script import name_steps

    func = net.route
    signature = inspect.signature(func)
    found = value_examples(func, net, func.__doc__, signature, {"net", "a", "b"}, "netfx")
    candidates = [{"examples": found[:1]}]
    name_steps(candidates, {id(net.Net): {"target": "netfx:Net", "kind": "constructor"}})
    targets = [s["target"] for s in candidates[0]["examples"][0]["session"]]
    assert targets == ["netfx:Net", "netfx:Net.link", "netfx:Net.link"]
    # a class listed by something other than its constructor: no tool replays the setup
    found = value_examples(func, net, func.__doc__, signature, {"net", "a", "b"}, "netfx")
    candidates = [{"examples": found[:1]}]
    name_steps(candidates, {id(net.Net): {"target": "netfx:make", "kind": "function"}})
    assert candidates[0]["examples"] == []


UNPACK_SOURCE = '''
def split(values):
    half = len(values) // 2
    return values[:half], values[half:]


def join(head, tail, sep=0):
    """Join two halves.

    >>> head, tail = split([1, 2, 3, 4])
    >>> join(head, tail)
    [1, 2, 0, 3, 4]
    >>> first, *rest = split([1, 2])
    >>> join(first, rest)
    [1, 0, 2]
    """
    return [*head, sep, *tail]
'''


def test_names_a_line_unpacks_are_items_of_its_result(tmp_path: Path) -> None:
    # ``head, tail = split(...)``: each argument is one item of what split returned (its
    # ``part``); a starred target is not followed.
    path = tmp_path / "unpackfx.py"
    path.write_text(UNPACK_SOURCE)
    spec = importlib.util.spec_from_file_location("unpackfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["unpackfx"] = loaded
    try:
        spec.loader.exec_module(loaded)
        func = loaded.join
        found = value_examples(
            func, loaded, func.__doc__, inspect.signature(func), {"head", "tail", "sep"}, "unpackfx"
        )
    finally:
        del sys.modules["unpackfx"]
    (example,) = found
    assert (example["expected"], example["line"]) == ([1, 2, 0, 3, 4], "join(head, tail)")
    assert [(s["into"], s["part"], s["arguments"]) for s in example["session"]] == [
        ("head", 0, {"values": [1, 2, 3, 4]}),
        ("tail", 1, {"values": [1, 2, 3, 4]}),
    ]
    assert all(s["_id"] == id(loaded.split) for s in example["session"])


def _examples_of(
    tmp_path: Path, name: str, source: str, function: str, exposed: set[str]
) -> tuple[ModuleType, list[dict[str, Any]]]:
    """``value_examples`` of ``function`` in a module ``name`` written from ``source``."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
        func = getattr(loaded, function)
        signature = inspect.signature(func)
        return loaded, value_examples(func, loaded, func.__doc__, signature, exposed, name)
    finally:
        del sys.modules[name]


FACTORY_SOURCE = '''
class Orbit:
    def __init__(self, period):
        self.period = period
        self.age = 0

    @classmethod
    def from_text(cls, text):
        return cls(float(text))

    def advance(self, days):
        self.age += days
        return self.age


def period_of(orbit):
    """The period.

    >>> orbit = Orbit.from_text("2.5")
    >>> period_of(orbit)
    2.5
    >>> orbit.advance(3)
    3
    >>> period_of(orbit)
    2.5
    """
    return orbit.period
'''


def test_a_class_method_builds_the_class_and_a_changed_value_is_expected_unblamed(
    tmp_path: Path,
) -> None:
    loaded, found = _examples_of(tmp_path, "factoryfx", FACTORY_SOURCE, "period_of", {"orbit"})
    # named by the class it builds and the method's name (script makes it the tool target)
    steps = [(s["_id"], s.get("factory"), s["arguments"]) for s in found[0]["session"]]
    assert steps == [(id(loaded.Orbit), "from_text", {"text": "2.5"})]
    exact, changed, unproven = found
    assert (exact["expected"], exact["line"]) == (2.5, "period_of(orbit)")
    # after orbit.advance(3), which the replay does not repeat: its output is expected,
    # never as the repository's own line; the same call without it comes after
    assert changed["expected"] == 2.5 and "line" not in changed
    assert not unproven["has_expected"] and unproven["session"] == changed["session"]


SHOWN_SOURCE = '''
class Orbit:
    def __init__(self, period):
        self.period = period


def halves(orbit):
    """Each half of the period.

    >>> orbit = Orbit(3.0)
    >>> first, second = halves(orbit)
    >>> first
    1.5
    >>> res = halves(Orbit(5.0))
    >>> res = halves(Orbit(7.0))
    >>> res
    (3.5, 3.5)
    """
    return orbit.period / 2, orbit.period / 2
'''


def test_a_held_result_of_a_built_argument_shows_its_value_later(tmp_path: Path) -> None:
    _, found = _examples_of(tmp_path, "shownfx", SHOWN_SOURCE, "halves", {"orbit"})
    shown = [(e["expected"], e.get("part"), e.get("line")) for e in found]
    # the item a later line shows, at its place; a name bound again holds the later call's
    assert shown == [(1.5, 0, None), ([3.5, 3.5], None, None), (None, None, None)]
    assert [s["arguments"] for s in found[1]["session"]] == [{"period": 7.0}]
    assert all("_exact" not in e for e in found)


COMPILED = '''
class _Meta(type):
    __signature__ = property(lambda cls: "unreadable")  # inspect.signature raises, as in C


class Wave(metaclass=_Meta):
    """Wave(name, bank=None) object describes a named wave."""

    def __init__(self, name, bank=None):
        self.name = name


def decompose(values, wave):
    """The values in pairs of sums, scaled by the length of the wave's name."""
    return [(a + b) * len(wave.name) for a, b in zip(values[::2], values[1::2])]
'''


def test_a_compiled_class_built_in_the_text_is_an_argument(tmp_path: Path) -> None:
    from probe_modules import guided_module

    text = ">>> import compiledfx\n>>> w = compiledfx.Wave('db')\n"
    text += ">>> compiledfx.decompose([3, 1, 4, 1], w)\n[8, 10]\n"
    with guided_module(tmp_path, "compiledfx", COMPILED, []) as loaded:
        func = loaded.decompose
        with pytest.raises((TypeError, ValueError)):
            inspect.signature(loaded.Wave)
        found = value_examples(
            func, loaded, text, inspect.signature(func), {"values", "wave"}, "compiledfx", True
        )
    # its signature read from the docstring's first line, as pywt.Wavelet's
    (example,) = found
    assert (example["arguments"], example["expected"]) == ({"values": [3, 1, 4, 1]}, [8, 10])
    (step,) = example["session"]
    assert (step["arguments"], step["into"]) == ({"name": "db"}, "wave")
