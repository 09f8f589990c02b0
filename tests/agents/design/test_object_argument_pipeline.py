"""Object arguments through MCP: one the docs never build, built by its type's constructor
tool from that constructor's own documented arguments; a list of built objects; and a
method's argument the session built (``loud.louder(soft)``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from argument_fixtures import make_object_argument_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_object_arguments_are_built_by_constructor_tools(tmp_path: Path) -> None:
    repo = make_object_argument_repo(tmp_path / "objpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    signal = tools["Signal"]
    assert signal.status == "passed", signal.error

    # gain(sig, 3.0): ``sig`` is never built; ``signal : Signal`` types it, so validation
    # builds it through Signal's tool with the docstring's own Signal(1.0, 3.0, 2.0). The
    # README's 9.0 was shown for a ``sig`` we do not know: no expected value is claimed,
    # but the call through MCP computed max(1.0, 3.0, 2.0) * 3.0 on the built handle.
    gain = tools["gain"]
    assert gain.status == "passed", gain.error
    assert gain.evidence is not None
    assert gain.evidence.check == "no-error"
    assert gain.evidence.result == 9.0
    [step] = gain.evidence.session
    assert (step.into, step.tool, step.typed) == ("signal", signal.name, True)
    assert step.arguments == {"samples": [1.0, 3.0, 2.0]}
    assert step.line == "sig = Signal(samples=[1.0, 3.0, 2.0])"

    # spread([a, b]) -> 3.5: each item built by its README line, checked by value.
    spread = tools["spread"]
    assert spread.status == "passed", spread.error
    assert spread.evidence is not None
    assert spread.evidence.check == "expected-value"
    assert spread.evidence.result == 3.5
    steps = [(s.line, s.into, s.item) for s in spread.evidence.session]
    assert steps == [
        ("a = Signal(1.0, 2.0)", "signals", 0),
        ("b = Signal(4.0, 0.5)", "signals", 1),
    ]

    # resp = measure(quiet, scale=2.0); resp.peak() -> 10.0: the receiver is built by
    # measure's tool, which takes the Signal the session's first step built.
    peak = tools["Response.peak"]
    assert peak.status == "passed", peak.error
    assert peak.evidence is not None
    assert peak.evidence.check == "expected-value"
    assert peak.evidence.result == 10.0
    built = [(s.line, s.tool, s.takes) for s in peak.evidence.session]
    assert built == [
        ("quiet = Signal(1.0, 5.0)", signal.name, {}),
        ("resp = measure(quiet, scale=2.0)", tools["measure"].name, {"signal": 0}),
    ]
    # loud.louder(soft) -> True: a method whose argument is an object the session built,
    # by its own step (``into``) after the receiver's, checked by value.
    louder = tools["Signal.louder"]
    assert louder.status == "passed", louder.error
    assert louder.evidence is not None
    assert (louder.evidence.check, louder.evidence.result) == ("expected-value", True)
    steps = [(s.line, s.into, s.tool) for s in louder.evidence.session]
    assert steps == [
        ("loud = Signal(1.0, 9.0)", None, signal.name),
        ("soft = Signal(2.0, 3.0)", "other", signal.name),
    ]
    other = louder.evidence.arguments["other"]
    assert isinstance(other, dict) and isinstance(other.get("handle"), str)
    # mix = Mix([hi, Signal(2.0, 7.5)], name="duo"); mix.peak() -> 7.5: the receiver's
    # constructor takes the list of both signals, each built by its own step first.
    mixed = tools["Mix.peak"]
    assert mixed.status == "passed", mixed.error
    assert mixed.evidence is not None
    assert (mixed.evidence.check, mixed.evidence.result) == ("expected-value", 7.5)
    built = [(s.tool, s.arguments, s.takes) for s in mixed.evidence.session]
    assert built == [
        (signal.name, {"samples": [1.0, 6.0]}, {}),
        (signal.name, {"samples": [2.0, 7.5]}, {}),
        (tools["Mix"].name, {"name": "duo"}, {"signals": [0, 1]}),
    ]
    assert {"gain", "spread", "Signal", "peak", "louder", "Mix"} <= set(report.coverage.covered)

    # Source.level is defined on Source, whose own instance raises "not implemented" and
    # whose constructor the docs never call: its receiver is Tone(2.5), the subclass's
    # documented construction.
    level = tools["Source.level"]
    assert level.status == "passed", level.error
    assert level.evidence is not None and level.evidence.result == 2.5
    [receiver] = level.evidence.session
    assert (receiver.tool, receiver.arguments) == (tools["Tone"].name, {"amplitude": 2.5})

    # The generated tests (run by the pipeline before registering) replay them the same way.
    assert report.output_dir is not None
    generated = Path(report.output_dir) / "tests" / "validation_calls.json"
    calls = json.loads(generated.read_text())
    sessions = [[step["takes"] for step in call["session"]] for call in calls]
    assert [{}, {"signal": 0}] in sessions
    assert [{}, {}, {"signals": [0, 1]}] in sessions
