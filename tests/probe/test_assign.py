"""Attribute assignments in a session (``m.scale = Scale(2)``) as setup steps replayed
through a setter tool of the class, for a method's receiver and for a built argument."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from probe_modules import guided_module

from metaserver.probe.members import describe_callable, describe_class
from metaserver.probe.script import name_steps

SOURCE = """
class Scale:
    def __init__(self, factor):
        self.factor = factor


class Meter:
    def __init__(self):
        self.scale = None
        self.offset = 0

    def read(self, x):
        return x * self.scale.factor + self.offset


def gauge(meter, x):
    return meter.read(x)


class Loose:
    def __init__(self, *args, **kwargs):
        self.factor = kwargs.get("factor", 1)

    def read(self, x):
        return x * self.factor
"""

GUIDE = """
>>> m = Meter()
>>> m.scale = Scale(2)
>>> m.offset = 1
>>> m.read(3)
7
>>> n = Meter()
>>> n.scale = lookup("x")
>>> n.read(3)
9
>>> p = Meter()
>>> p.offset = 4
>>> gauge(p, 1)
5
>>> q = Loose(factor=3)
>>> q.read(2)
6
>>> m.scale = Loose(factor=3)
>>> m.read(1)
3
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    with guided_module(tmp_path, "meterfx", SOURCE, [GUIDE]) as loaded:
        yield loaded


def listed(module: ModuleType) -> list[dict[str, Any]]:
    """What script lists: the classes, the function, steps named, setters added."""
    described = [
        *describe_class(module.Scale, "Scale", module, True, "meterfx"),
        *describe_class(module.Meter, "Meter", module, True, "meterfx"),
        describe_callable(module.gauge, "gauge", module, True),
    ]
    candidates = [c for c, _, _ in described if c is not None]
    seen = {id(module.Scale): candidates[0], id(module.Meter): candidates[1]}
    name_steps(candidates, seen)
    return candidates


def test_an_assignment_on_the_receiver_is_a_setup_step(module: ModuleType) -> None:
    by_target = {c["target"]: c for c in listed(module)}
    examples = by_target["meterfx:Meter.read"]["examples"]
    # ``n.scale = lookup("x")``: nothing of ours builds the value, so ``n`` is no receiver
    [example] = [e for e in examples if e["has_expected"]]
    assert example["expected"] == 7
    steps = [(s["line"], s["target"], s.get("assign")) for s in example["session"]]
    assert steps == [
        ("m.scale = Scale(2)", "meterfx:Scale", None),  # the value, built first
        ("m = Meter()", "meterfx:Meter", None),
        ("m.scale = Scale(2)", "meterfx:Meter.scale", "scale"),
        ("m.offset = 1", "meterfx:Meter.offset", "offset"),
    ]
    assert example["session"][2]["takes"] == {"value": 0}
    assert example["session"][3]["arguments"] == {"value": 1}
    assert all("_setter" not in s for s in example["session"])


def test_an_assignment_on_a_built_argument_is_its_setup_step(module: ModuleType) -> None:
    by_target = {c["target"]: c for c in listed(module)}
    [example] = [e for e in by_target["meterfx:gauge"]["examples"] if e["has_expected"]]
    assert example["expected"] == 5
    steps = [(s["target"], s.get("into"), s.get("on"), s.get("assign")) for s in example["session"]]
    assert steps == [
        ("meterfx:Meter", "meter", None, None),
        ("meterfx:Meter.offset", None, 0, "offset"),
    ]


def test_each_assigned_attribute_gets_one_setter_with_an_example(module: ModuleType) -> None:
    setters = {c["target"]: c for c in listed(module) if c.get("assigns")}
    assert set(setters) == {"meterfx:Meter.scale", "meterfx:Meter.offset"}
    scale = setters["meterfx:Meter.scale"]
    assert (scale["name"], scale["kind"], scale["owner"]) == (
        "Meter.set_scale",
        "method",
        "meterfx:Meter",
    )
    assert [p["name"] for p in scale["parameters"]] == ["handle", "value"]
    # its own proof: the Meter as the session had it, the Scale built into ``value``
    [own] = scale["examples"]
    assert [(s["target"], s.get("into")) for s in own["session"]] == [
        ("meterfx:Meter", None),
        ("meterfx:Scale", "value"),
    ]
    [offset] = setters["meterfx:Meter.offset"]["examples"]
    assert offset["arguments"] == {"value": 1}


def test_keywords_the_docs_pass_into_kwargs_make_it_a_parameter(module: ModuleType) -> None:
    # ``Loose(factor=3)`` passes ``factor`` into ``**kwargs``: the constructor's tool takes
    # ``kwargs`` (an object the runtime spreads), so steps that pass it replay
    # (a README's literal call is usage mining's; here the session step asks for it)
    described = [c for c, _, _ in describe_class(module.Loose, "Loose", module, True, "meterfx")]
    candidates = [c for c in described if c is not None]
    name_steps(candidates, {id(module.Loose): candidates[0]})
    by_target = {c["target"]: c for c in candidates}
    (kwargs,) = [p for p in by_target["meterfx:Loose"]["parameters"] if p["name"] == "kwargs"]
    assert (kwargs["kind"], kwargs["required"], kwargs["default"]) == ("var_keyword", False, {})
    assert by_target["meterfx:Loose"]["hidden_parameters"] == []
    [example] = [e for e in by_target["meterfx:Loose.read"]["examples"] if e["has_expected"]]
    assert example["expected"] == 6
    assert example["session"][0]["arguments"] == {"kwargs": {"factor": 3}}
    # Meter's constructor takes no keywords its docs pass: no parameter, nothing hidden
    meter = describe_class(module.Meter, "Meter", module, True, "meterfx")[0][0]
    assert meter is not None and meter["parameters"] == []
    assert all("_spread" not in c for c in candidates)


def test_a_step_its_tool_cannot_take_drops_its_example() -> None:
    step = {"line": "q = Loose(factor=3)", "target": "fx:Loose", "arguments": {"factor": 3}}
    candidates = [
        {"target": "fx:Loose", "parameters": [], "examples": []},
        {
            "target": "fx:Loose.read",
            "parameters": [{"name": "handle"}, {"name": "x"}],
            "examples": [
                {"arguments": {"x": 2}, "session": [step]},
                {"arguments": {"x": 1}, "session": [dict(step, arguments={})]},
            ],
        },
    ]
    name_steps(candidates, {})
    # ``factor`` is no parameter of Loose's tool: only the example that passes nothing stays
    assert [e["arguments"] for e in candidates[1]["examples"]] == [{"x": 1}]
