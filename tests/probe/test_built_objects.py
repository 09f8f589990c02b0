"""built_objects: objects a session built as a method's arguments (``a.is_compatible(b)``,
``v.is_compatible(Version(0, 1, 1))``) and inside a receiver's construction
(``Array(Mount(30, 90))``)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe.members import describe_class

SOURCE = '''
class Version:
    """A version.

    >>> a = Version(1, 1)
    >>> b = Version(2, 0)
    >>> a.is_compatible(b)
    False
    >>> Version(1, 0).is_compatible(Version(1, 4))
    True
    >>> c = Version(1, 2)
    >>> c.bump()
    >>> d = Version(1, 5)
    >>> d.is_compatible(c)
    True
    >>> e = Version(1, 5)
    >>> e.is_compatible(other())
    True
    >>> Version(1, 1).distance(Span(3))
    4
    >>> s = Span(2)
    >>> t = Span(2)
    >>> s.grow(5)
    >>> Version(1, 2).distance(s)
    9
    >>> Version(1, 0).distance(t)
    2
    >>> w = Span(4)
    >>> Version(1, 1).widest([w, Span(7)])
    8
    >>> Version(1, 1).widest((Span(2), w, 3))
    5
    >>> acc = Span(1)
    >>> Version(1, 2).distance(acc)
    3
    >>> Version(1, 0).feed(acc)
    >>> Version(1, 2).distance(acc)
    4
    """

    def __init__(self, major, minor=0):
        self.major, self.minor = major, minor

    def bump(self):
        self.minor += 1

    def is_compatible(self, other: "Version") -> bool:
        return self.major == other.major

    def distance(self, span):
        return self.minor + span.width

    def widest(self, spans):
        return self.minor + max(getattr(s, "width", s) for s in spans)

    def feed(self, span):
        span.width += self.major


class Span:
    """A width.

    >>> acc = Span(1)
    >>> acc.size()
    1
    >>> Version(2, 0).feed(acc)
    >>> acc.size()
    3
    """

    def size(self):
        return self.width

    def __init__(self, width):
        self.width = width

    def grow(self, by):
        self.width += by


class Mount:
    def __init__(self, tilt, azimuth=180):
        self.tilt, self.azimuth = tilt, azimuth

    def turn(self, by):
        self.tilt += by


class Array:
    """Panels on a mount.

    >>> arr = Array(Mount(30, azimuth=90), name="one")
    >>> arr.aoi(10)
    40
    >>> Array(Mount(5)).aoi(1)
    6
    >>> m = Mount(10)
    >>> m.turn(5)
    >>> turned = Array(m)
    >>> turned.aoi(0)
    15
    """

    def __init__(self, mount, name=""):
        self.mount, self.name = mount, name

    def aoi(self, zenith):
        return self.mount.tilt + zenith


class Fleet:
    """Arrays together.

    >>> one = Array(Mount(30, azimuth=90))
    >>> two = Array(Mount(10))
    >>> fleet = Fleet(arrays=[one, two])
    >>> fleet.total(5)
    50
    >>> Fleet((Array(Mount(1)), one), "f").total(0)
    31
    >>> Fleet([one, 2]).total(0)
    30
    """

    def __init__(self, arrays, name=""):
        self.arrays, self.name = list(arrays), name

    def total(self, zenith):
        return sum(a.aoi(zenith) for a in self.arrays if isinstance(a, Array))


def other():
    return Version(1, 9)
'''


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "objargfx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("objargfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["objargfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["objargfx"]


def examples(module: ModuleType, cls: str, method: str) -> dict[str, dict[str, Any]]:
    described = describe_class(getattr(module, cls), cls, module, True, "objargfx")
    (found,) = [c for c, _, t in described if t == f"objargfx:{cls}.{method}"]
    return {e["line"]: e for e in found["examples"] if e["has_expected"]}


def test_a_variable_the_session_built_is_an_argument_built_by_its_step(
    module: ModuleType,
) -> None:
    proofs = examples(module, "Version", "is_compatible")
    proof = proofs["a.is_compatible(b)"]
    assert proof["expected"] is False
    assert proof["arguments"] == {}
    # The receiver's construction, then the argument's, ``into`` the parameter it fills.
    assert [(s["line"], s.get("into"), s["arguments"]) for s in proof["session"]] == [
        ("a = Version(1, 1)", None, {"major": 1, "minor": 1}),
        ("b = Version(2, 0)", "other", {"major": 2, "minor": 0}),
    ]
    assert all(s["target"] == "objargfx:Version" for s in proof["session"])
    # ``c`` was set up since it was built (c.bump()): one step no longer builds it.
    assert "d.is_compatible(c)" not in proofs
    # A function of the package called inline builds the argument by its own tool.
    built = proofs["e.is_compatible(other())"]["session"][-1]
    assert (built["_id"], built["into"], built["arguments"]) == (id(module.other), "other", {})


def test_an_argument_built_inline_is_a_step_of_its_own_line(module: ModuleType) -> None:
    proof = examples(module, "Version", "is_compatible")[
        "Version(1, 0).is_compatible(Version(1, 4))"
    ]
    assert proof["expected"] is True
    receiver, argument = proof["session"]
    assert (receiver["target"], receiver["arguments"]) == (
        "objargfx:Version",
        {"major": 1, "minor": 0},
    )
    assert argument["into"] == "other" and argument["_id"] == id(module.Version)
    assert argument["arguments"] == {"major": 1, "minor": 4}
    assert argument["line"] == proof["line"]
    # An untyped parameter given another class's object: built by that class's step.
    distances = examples(module, "Version", "distance")
    span = distances["Version(1, 1).distance(Span(3))"]
    assert span["expected"] == 4
    assert span["session"][-1]["into"] == "span" and span["session"][-1]["_id"] == id(module.Span)
    # ``s.grow(5)`` changed ``s`` since ``Span(2)`` built it: no step replays that line.
    assert "Version(1, 2).distance(s)" not in distances
    assert {"Version(1, 1).distance(Span(3))", "Version(1, 0).distance(t)"} <= set(distances)
    assert distances["Version(1, 0).distance(t)"]["session"][-1]["line"] == "t = Span(2)"


def test_a_receiver_built_with_an_object_built_inline_takes_it(module: ModuleType) -> None:
    proofs = examples(module, "Array", "aoi")
    proof = proofs["arr.aoi(10)"]
    assert proof["expected"] == 40 and proof["arguments"] == {"zenith": 10}
    mount, array = proof["session"]
    assert mount["_id"] == id(module.Mount) and "into" not in mount
    assert mount["arguments"] == {"tilt": 30, "azimuth": 90}
    assert array["target"] == "objargfx:Array" and array["arguments"] == {"name": "one"}
    assert array["takes"] == {"mount": 0}
    # The same on the documented line itself: ``Array(Mount(5)).aoi(1)``.
    inline = proofs["Array(Mount(5)).aoi(1)"]
    assert inline["expected"] == 6
    assert [s.get("takes") for s in inline["session"]] == [None, {"mount": 0}]
    # ``m.turn(5)`` changed ``m`` since its step built it: no construction takes it.
    assert "turned.aoi(0)" not in proofs


def test_a_list_of_built_objects_is_a_method_argument_item_by_item(module: ModuleType) -> None:
    proofs = examples(module, "Version", "widest")
    proof = proofs["Version(1, 1).widest([w, Span(7)])"]
    assert proof["expected"] == 8 and proof["arguments"] == {}
    receiver, *items = proof["session"]
    assert receiver["target"] == "objargfx:Version" and "into" not in receiver
    # Each item by its own step, ``into`` the list parameter at its place (as a function's).
    assert [(s["line"], s["into"], s["item"], s["arguments"]) for s in items] == [
        ("w = Span(4)", "spans", 0, {"width": 4}),
        (proof["line"], "spans", 1, {"width": 7}),
    ]
    assert all(s["_id"] == id(module.Span) for s in items)
    # A literal among the items: no step carries it, so no example.
    assert set(proofs) == {proof["line"]}


def test_a_receiver_built_with_a_list_of_built_objects_takes_each(module: ModuleType) -> None:
    proofs = examples(module, "Fleet", "total")
    proof = proofs["fleet.total(5)"]
    assert proof["expected"] == 50 and proof["arguments"] == {"zenith": 5}
    lines = [s["line"] for s in proof["session"]]
    assert lines == [
        "one = Array(Mount(30, azimuth=90))",
        "one = Array(Mount(30, azimuth=90))",
        "two = Array(Mount(10))",
        "two = Array(Mount(10))",
        "fleet = Fleet(arrays=[one, two])",
    ]
    # Each array's own steps (its mount first), then the fleet takes both arrays, in order.
    assert [s.get("takes") for s in proof["session"]] == [
        None,
        {"mount": 0},
        None,
        {"mount": 2},
        {"arrays": [1, 3]},
    ]
    # A tuple, an object built inline among variables, with a literal argument beside.
    inline = proofs['Fleet((Array(Mount(1)), one), "f").total(0)']
    assert inline["expected"] == 31
    assert inline["session"][-1]["takes"] == {"arrays": [1, 3]}
    assert inline["session"][-1]["arguments"] == {"name": "f"}
    # A literal item in the list: nothing builds the list, so no example.
    assert "Fleet([one, 2]).total(0)" not in proofs


def test_an_object_passed_to_a_method_may_have_changed(module: ModuleType) -> None:
    distances = examples(module, "Version", "distance")
    # Before ``feed(acc)`` the argument is as built; after it, no replay builds it so.
    assert distances["Version(1, 2).distance(acc)"]["expected"] == 3
    described = describe_class(module.Span, "Span", module, True, "objargfx")
    (found,) = [c for c, _, t in described if t == "objargfx:Span.size"]
    # ``acc.size()`` is 1 as built; 3 after ``feed(acc)`` changed it: not our replay's.
    assert [(e["line"], e["expected"]) for e in found["examples"] if e["has_expected"]] == [
        ("acc.size()", 1)
    ]
