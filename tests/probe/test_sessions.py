"""method_examples: a method's doctest examples carry the session that built its receiver."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe.members import describe_callable, describe_class

SOURCE = '''
class Grid:
    """A cell.

    >>> Grid("C3").code()
    4380
    """

    def __init__(self, name="Z9"):
        self.name = name

    def code(self):
        """The code.

        >>> code = Grid("B2").code
        >>> code()
        4355

        >>> g = Grid("A1")
        >>> g.code()
        4328
        >>> other.code()
        11
        >>> g = make_grid()
        >>> g.code()
        12
        """
        return 1


class Tally:
    """Running total.

    >>> acc = Tally()
    >>> acc.add(1)
    >>> acc
    <Tally>
    >>> len(acc.values)
    1
    >>> acc.add(5)
    >>> acc.total()
    6
    >>> acc.values = []
    >>> acc.total()
    0
    """

    def __init__(self):
        self.values = []

    def add(self, value):
        self.values.append(value)

    def total(self):
        return sum(self.values)


class Ellipsoid:
    def __init__(self, radius, flattening):
        self.radius, self.flattening = radius, flattening

    def polar(self):
        """Polar radius.

        >>> e = Ellipsoid.EARTH
        >>> e.polar()
        75.0
        """
        return self.radius * (1 - self.flattening)


Ellipsoid.EARTH = Ellipsoid(100.0, 0.25)
Ellipsoid.NAME = "earth"


class Deck:
    """Cards.

    >>> d = Deck(3)
    >>> for card in d.deal():
    ...     print(card)
    0
    1
    2
    """

    def __init__(self, n):
        self.n = n

    def deal(self):
        return iter(range(self.n))


def make_grid():
    return Grid()


class Registry:
    def __init__(self, names):
        self.names = dict(names)

    def symbol(self, name):
        """The symbol of ``name``.

        >>> import sessionfx
        >>> sessionfx.elements.symbol("iron")
        'Fe'
        >>> elements.symbol("nickel")
        'Ni'
        >>> Registry({}).symbol  # doctest: +ELLIPSIS
        <bound method ...>
        """
        return self.names[name]


elements = Registry({"iron": "Fe", "nickel": "Ni"})


class Dot:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm(self):
        return (self.x**2 + self.y**2) ** 0.5


def total(values=()):
    """Sum.

    >>> acc = Tally()
    >>> acc.total()
    0
    >>> total([1, 2])
    3
    """
    return sum(values)
'''


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "sessionfx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("sessionfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["sessionfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["sessionfx"]


def examples(module: ModuleType, cls: str, method: str) -> list[dict[str, Any]]:
    described = describe_class(getattr(module, cls), cls, module, True, "sessionfx")
    (found,) = [c for c, _, t in described if t == f"sessionfx:{cls}.{method}"]
    assert found is not None
    return list(found["examples"])


def test_a_method_example_carries_the_receiver_its_session_built(module: ModuleType) -> None:
    found = examples(module, "Grid", "code")
    # g = make_grid(); g.code() -> 12: a receiver the package's own function built, named
    # by its id until script knows its tool
    (made,) = [e for e in found if e.get("session") and "_id" in e["session"][0]]
    assert made["expected"] == 12
    assert made["session"][0]["_id"] == id(module.make_grid)
    proofs = {e["line"]: e for e in found if e["has_expected"] and e is not made}
    # Its own docstring's g = Grid("A1"), and the class's inline Grid("C3").code().
    assert proofs["g.code()"]["expected"] == 4328
    assert proofs["g.code()"]["session"] == [
        {
            "line": 'g = Grid("A1")',
            "target": "sessionfx:Grid",
            "member": None,
            "arguments": {"name": "A1"},
        }
    ]
    assert proofs['Grid("C3").code()']["expected"] == 4380
    # code = Grid("B2").code; code(): the bound method's object is the receiver.
    assert proofs["code()"]["expected"] == 4355
    assert [(s["line"], s["arguments"]) for s in proofs["code()"]["session"]] == [
        ('code = Grid("B2").code', {"name": "B2"})
    ]
    # other.code(): arguments, never its output.
    assert set(proofs) == {"g.code()", 'Grid("C3").code()', "code()"}
    assert all(not e.get("session") for e in found if not e["has_expected"])


def test_a_stateful_session_replays_its_setup_calls(module: ModuleType) -> None:
    proof, reset = [e for e in examples(module, "Tally", "total") if e["has_expected"]]
    assert proof["expected"] == 6
    assert proof["line"] == "acc.total()"
    assert [(s["line"], s["member"], s["arguments"]) for s in proof["session"]] == [
        ("acc = Tally()", None, {}),
        ("acc.add(1)", "add", {"value": 1}),
        ("acc.add(5)", "add", {"value": 5}),
    ]
    # Showing acc or len(acc.values) changes nothing; acc.values = [] is a setup step
    # replayed through the class's setter tool (assign.py): a second proof.
    assert reset["expected"] == 0
    last = reset["session"][-1]
    assert (last["line"], last["member"], last["assign"]) == ("acc.values = []", "values", "values")
    assert (last["target"], last["arguments"]) == ("sessionfx:Tally.values", {"value": []})


def test_a_call_a_loop_iterates_is_an_example_without_output(module: ModuleType) -> None:
    # ``for card in d.deal(): print(card)``: the printed lines are the loop's, not the
    # call's value; the call still gets the receiver its session built.
    (found,) = examples(module, "Deck", "deal")
    assert not found["has_expected"]
    assert [(s["line"], s["arguments"]) for s in found["session"]] == [("d = Deck(3)", {"n": 3})]


def test_a_function_of_the_same_name_keeps_only_its_own_line(module: ModuleType) -> None:
    candidate, _, _ = describe_callable(module.total, "total", module, True)
    assert candidate is not None
    assert [(e["arguments"], e["expected"], e["line"]) for e in candidate["examples"]] == [
        ({"values": [1, 2]}, 3, "total([1, 2])")
    ]


def test_a_class_attribute_holding_an_instance_is_a_receiver(module: ModuleType) -> None:
    (proof,) = [e for e in examples(module, "Ellipsoid", "polar") if e["has_expected"]]
    assert proof["expected"] == 75.0
    assert proof["session"] == [
        {
            "line": "e = Ellipsoid.EARTH",
            "target": "sessionfx:Ellipsoid.EARTH",
            "member": None,
            "arguments": {},
            "attribute": "EARTH",
        }
    ]
    # The receiver parameter offers the instances the class holds, and only those.
    described = describe_class(module.Ellipsoid, "Ellipsoid", module, True, "sessionfx")
    (polar,) = [c for c, _, t in described if t == "sessionfx:Ellipsoid.polar"]
    arms = polar["parameters"][0]["json_schema"]["anyOf"]
    assert arms[-1]["properties"] == {"attribute": {"enum": ["EARTH"]}}


def test_an_instance_a_module_holds_is_a_receiver(module: ModuleType) -> None:
    proofs = [e for e in examples(module, "Registry", "symbol") if e["has_expected"]]
    held = {
        "target": "sessionfx:Registry.elements",
        "member": None,
        "arguments": {},
        "attribute": "elements",
    }
    assert [(e["arguments"], e["expected"], e["session"]) for e in proofs] == [
        ({"name": "iron"}, "Fe", [dict(held, line='sessionfx.elements.symbol("iron")')]),
        ({"name": "nickel"}, "Ni", [dict(held, line='elements.symbol("nickel")')]),
    ]


README = """\
>>> from sessionfx import Dot as Point
>>> size = Point(1.0, 2.0).norm()
>>> Point(3.0, 4.0).norm()
5.0
>>> somebody_else.norm()
7
"""


def test_a_readme_session_builds_its_receiver_with_the_names_it_imports(
    module: ModuleType,
) -> None:
    from metaserver.probe import members

    members.set_guides([README])
    try:
        found = examples(module, "Dot", "norm")
    finally:
        members.set_guides([])
    by_line = {e.get("line") or e["session"][0]["line"]: e for e in found if e.get("session")}
    # ``Point`` is the README's own name for Dot; a call assigned to a name is an example
    # without an output, on the receiver its line built.
    assigned = by_line["size = Point(1.0, 2.0).norm()"]
    assert not assigned["has_expected"]
    assert assigned["session"][0]["arguments"] == {"x": 1.0, "y": 2.0}
    assert by_line["Point(3.0, 4.0).norm()"]["expected"] == 5.0
    # another object's norm() in a README is not an example of Dot.norm: no example at all
    assert len(found) == 2


RESPONSES = """
class System:
    def __init__(self, *poles):
        self.poles = list(poles)


class Response:
    def __init__(self, *values):
        self.values = list(values)

    def peak(self):
        return max(self.values)


class Other:
    def __init__(self, *values):
        self.values = list(values)

    def peak(self):
        return min(self.values)


def response(system, scale=1.0):
    '''The system's response.

    Returns
    -------
    resp : `Response`
        What it measured.
    '''
    return Response(*(p * scale for p in system.poles))
"""

RESPONSE_GUIDE = """
>>> sys = System(1.0, 5.0)
>>> resp = response(sys, scale=2.0)
>>> resp.peak()
10.0
>>> other = response(unknown)
>>> other.peak()
3.0
"""


def test_a_receiver_built_from_an_object_the_session_built(tmp_path: Path) -> None:
    from metaserver.probe import members

    path = tmp_path / "respfx.py"
    path.write_text(RESPONSES)
    spec = importlib.util.spec_from_file_location("respfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["respfx"] = loaded
    members.set_guides([RESPONSE_GUIDE])
    try:
        spec.loader.exec_module(loaded)
        described = describe_class(loaded.Response, "Response", loaded, True, "respfx")
        others = describe_class(loaded.Other, "Other", loaded, True, "respfx")
    finally:
        members.set_guides([])
        del sys.modules["respfx"]
    (peak,) = [c for c, _, t in described if t == "respfx:Response.peak"]
    # resp = response(sys, ...): System's step first, then response's, which takes what
    # the first left; ``unknown`` was never built, so ``other`` is no receiver
    [example] = peak["examples"]
    assert example["expected"] == 10.0
    first, second = example["session"]
    assert (first["line"], first["arguments"]) == ("sys = System(1.0, 5.0)", {"poles": [1.0, 5.0]})
    assert second["line"] == "resp = response(sys, scale=2.0)"
    assert (second["arguments"], second["takes"]) == ({"scale": 2.0}, {"system": 0})
    assert second["_id"] == id(loaded.response)
    # response's docstring says it returns a Response: no example of Other.peak
    (other,) = [c for c, _, t in others if t == "respfx:Other.peak"]
    assert other["examples"] == []


PRINTED = '''
class Reading:
    """A value with an uncertainty.

    >>> r = reading(0.20, 0.01)
    >>> print(r.score(0.17))
    -3.0
    >>> print(r.score(0.2), r.score(0.1))
    0.0 -10.0
    """

    def __init__(self, value, error):
        self.value, self.error = value, error

    def score(self, value):
        return (value - self.value) / self.error


def reading(value, error):
    return Reading(value, error)
'''


def test_a_printed_method_call_is_an_example_on_its_receiver(tmp_path: Path) -> None:
    path = tmp_path / "printedfx.py"
    path.write_text(PRINTED)
    spec = importlib.util.spec_from_file_location("printedfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["printedfx"] = loaded
    try:
        spec.loader.exec_module(loaded)
        described = describe_class(loaded.Reading, "Reading", loaded, True, "printedfx")
    finally:
        del sys.modules["printedfx"]
    (found,) = [c for c, _, t in described if t == "printedfx:Reading.score"]
    assert found is not None
    # print(r.score(0.17)): the call on the receiver reading(0.20, 0.01) built; the text
    # print shows is str(): the expected text (text.py), compared as text
    (example,) = found["examples"]
    assert example["arguments"] == {"value": 0.17}
    assert (example["wrapper"], example["expected"]) == ("str", "-3.0")
    [step] = example["session"]
    assert step["arguments"] == {"value": 0.2, "error": 0.01}
    assert step["_id"] == id(loaded.reading)


def test_forget_drops_every_receiver_a_statement_uses() -> None:
    import ast

    from metaserver.probe import sessions

    statement = ast.parse("f(acc, other.x, [kept_out])").body[0]
    receivers: dict[str, Any] = {"acc": [1], "other": [2], "kept": [3]}
    for _ in range(2):  # the second time from the names remembered for the statement
        sessions._forget(statement, receivers)
        assert receivers == {"acc": None, "other": None, "kept": [3]}
        receivers.update(acc=[1], other=[2])
