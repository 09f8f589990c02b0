"""probe_objargs: objects a session built as a method's arguments (``a.is_compatible(b)``,
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

from metaserver.agents.analysis.probe.probe_members import describe_class

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
    """

    def __init__(self, major, minor=0):
        self.major, self.minor = major, minor

    def bump(self):
        self.minor += 1

    def is_compatible(self, other: "Version") -> bool:
        return self.major == other.major

    def distance(self, span):
        return self.minor + span.width


class Span:
    def __init__(self, width):
        self.width = width

    def grow(self, by):
        self.width += by


class Mount:
    def __init__(self, tilt, azimuth=180):
        self.tilt, self.azimuth = tilt, azimuth


class Array:
    """Panels on a mount.

    >>> arr = Array(Mount(30, azimuth=90), name="one")
    >>> arr.aoi(10)
    40
    >>> Array(Mount(5)).aoi(1)
    6
    """

    def __init__(self, mount, name=""):
        self.mount, self.name = mount, name

    def aoi(self, zenith):
        return self.mount.tilt + zenith


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
    assert set(distances) == {"Version(1, 1).distance(Span(3))", "Version(1, 0).distance(t)"}
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
