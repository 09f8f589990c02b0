"""method_examples: a method called on the result of another call (a chain) is replayed on
what that call returned, when its signature says it returns the class."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe import members
from metaserver.probe.members import describe_class

SOURCE = """
from __future__ import annotations

from typing import Self


class Clock:
    def __init__(self, minutes=0):
        self.minutes = minutes

    def later(self, minutes) -> Clock:
        return Clock(self.minutes + minutes)

    def rounded(self) -> Self:
        return Clock(self.minutes // 60 * 60)

    def label(self):
        return f"{self.minutes // 60:02d}:{self.minutes % 60:02d}"

    def count(self) -> int:
        return self.minutes

    def guess(self):
        return Clock(0)


def noon() -> Clock:
    return Clock(720)
"""

README = """\
>>> from chainfx import Clock, noon
>>> noon().later(90).rounded().label()
'13:00'
>>> evening = Clock(600).later(480)
>>> evening.label()
'18:00'
>>> n = Clock(5).count()
>>> n.label()
'00:05'
>>> g = Clock(5).guess()
>>> g.label()
'00:00'
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "chainfx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("chainfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["chainfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["chainfx"]


def label_proofs(module: ModuleType) -> dict[str, list[dict[str, Any]]]:
    members.set_guides([README])
    try:
        described = describe_class(module.Clock, "Clock", module, True, "chainfx")
    finally:
        members.set_guides([])
    (label,) = [c for c, _, t in described if t == "chainfx:Clock.label"]
    return {e["line"]: e["session"] for e in label["examples"] if e["has_expected"]}


def test_a_chain_hands_on_what_each_call_returns(module: ModuleType) -> None:
    proofs = label_proofs(module)
    line = "noon().later(90).rounded().label()"
    # the function builds the clock; later() (-> Clock) and rounded() (-> Self) each hand on
    # the clock they return
    assert [
        (s.get("_id"), s.get("target"), s["member"], s.get("chained")) for s in proofs[line]
    ] == [
        (id(module.noon), None, None, None),
        (None, "chainfx:Clock.later", "later", True),
        (None, "chainfx:Clock.rounded", "rounded", True),
    ]
    assert [s["arguments"] for s in proofs[line]] == [{}, {"minutes": 90}, {}]
    assert all(s["line"] == line for s in proofs[line])
    # a name bound to a chain holds it
    assert [(s["line"], s["member"], s.get("chained")) for s in proofs["evening.label()"]] == [
        ("evening = Clock(600).later(480)", None, None),
        ("evening = Clock(600).later(480)", "later", True),
    ]


def test_a_call_that_returns_something_else_ends_the_chain(module: ModuleType) -> None:
    # count() -> int and guess() (no annotation) say nothing of a Clock: n and g are no
    # receivers of ours, and their label() lines no proofs.
    assert set(label_proofs(module)) == {"noon().later(90).rounded().label()", "evening.label()"}


STAMP_SOURCE = """
from __future__ import annotations

import datetime


class Stamp(datetime.date):
    def later(self) -> Stamp:
        return Stamp.fromordinal(self.toordinal() + 1)

    def label(self):
        return self.isoformat()


def first() -> Stamp:
    return Stamp(2024, 1, 1)
"""

STAMP_README = """\
>>> from stampfx import Stamp, first
>>> s = first()
>>> s.label()
'2024-01-01'
>>> Stamp(2024, 1, 1).later().label()
'2024-01-02'
"""


def test_no_session_rests_on_a_result_that_comes_back_as_data(tmp_path: Path) -> None:
    # A Stamp comes back from a function's or method's tool as an ISO string (its codec),
    # not a handle: a receiver rebuilt from it could differ from the line's, so neither the
    # function's result nor the chain's is a receiver. Only a constructor's tool keeps one.
    path = tmp_path / "stampfx.py"
    path.write_text(STAMP_SOURCE)
    spec = importlib.util.spec_from_file_location("stampfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["stampfx"] = loaded
    members.set_guides([STAMP_README])
    try:
        spec.loader.exec_module(loaded)
        described = describe_class(loaded.Stamp, "Stamp", loaded, True, "stampfx")
    finally:
        members.set_guides([])
        del sys.modules["stampfx"]
    (label,) = [c for c, _, t in described if t == "stampfx:Stamp.label"]
    assert [e for e in label["examples"] if e.get("session")] == []


ESTIMATOR_SOURCE = """
import functools


def checked(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return method(self, *args, **kwargs)

    return wrapper


class Scaler:
    def __init__(self, factor=1):
        self.factor = factor
        self.mean = None

    @checked
    def fit(self, values):
        if not values:
            raise ValueError("no values")
        self.mean = sum(values) / len(values)
        return self

    def refit(self, values):
        if values:
            return self
        return None

    def transform(self, value):
        return (value - self.mean) * self.factor


def series(n):
    return list(range(n)), [n]
"""

ESTIMATOR_README = """\
>>> from estfx import Scaler
>>> Scaler(2).fit([1, 2, 3]).transform(4)
4.0
>>> fitted = Scaler().fit([10, 20])
>>> fitted.transform(15)
0.0
>>> Scaler().refit([1]).transform(1)
0.0
>>> size, unused = 5, 0
>>> values, marks = series(size)
>>> Scaler().fit(values).transform(3)
1.0
>>> model = Scaler(3)
>>> model = model.fit([2, 4])
>>> model.transform(5)
6.0
"""


def test_a_method_that_returns_self_sets_its_receiver_up(tmp_path: Path) -> None:
    # fit() is unannotated and decorated; every path of it returns self, so the chain is
    # the receiver set up in place (an estimator's construct -> fit -> transform). refit()
    # may return None: no receiver after it.
    path = tmp_path / "estfx.py"
    path.write_text(ESTIMATOR_SOURCE)
    spec = importlib.util.spec_from_file_location("estfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["estfx"] = loaded
    members.set_guides([ESTIMATOR_README])
    try:
        spec.loader.exec_module(loaded)
        described = describe_class(loaded.Scaler, "Scaler", loaded, True, "estfx")
    finally:
        members.set_guides([])
        del sys.modules["estfx"]
    (transform,) = [c for c, _, t in described if t == "estfx:Scaler.transform"]
    proofs = {e["line"]: e for e in transform["examples"] if e["has_expected"]}
    assert set(proofs) == {
        "Scaler(2).fit([1, 2, 3]).transform(4)",
        "fitted.transform(15)",
        "Scaler().fit(values).transform(3)",
        "model.transform(5)",
    }
    # ``kf = kf.em(X)``: the line's call ran on the model the name held before it rebound it
    rebound = proofs["model.transform(5)"]["session"]
    assert [(s["member"], s["arguments"]) for s in rebound] == [
        (None, {"factor": 3}),
        ("fit", {"values": [2, 4]}),
    ]
    chain = proofs["Scaler(2).fit([1, 2, 3]).transform(4)"]
    assert [(s["member"], s["arguments"], s.get("chained")) for s in chain["session"]] == [
        (None, {"factor": 2}, None),
        ("fit", {"values": [1, 2, 3]}, None),
    ]
    assert chain["arguments"] == {"value": 4} and chain["expected"] == 4.0
    named = proofs["fitted.transform(15)"]["session"]
    assert [(s["member"], s["arguments"]) for s in named] == [
        (None, {}),
        ("fit", {"values": [10, 20]}),
    ]
