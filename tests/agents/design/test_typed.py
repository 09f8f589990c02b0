"""fill_typed_steps: an argument the docs never built gets its constructor's own arguments."""

from __future__ import annotations

from metaserver.agents.design.typed import fill_typed_steps
from metaserver.contracts import Candidate, Example, Parameter, SessionStep


def _constructor(*examples: Example) -> Candidate:
    parameter = Parameter(name="samples", kind="positional_or_keyword", required=True)
    return Candidate(
        target="objpack:Signal",
        name="Signal",
        signature="(samples)",
        parameters=[parameter],
        kind="constructor",
        examples=list(examples),
    )


def _gain() -> Candidate:
    typed = SessionStep(
        line="sig = Signal(...)", target="objpack:Signal", into="signal", typed=True
    )
    return Candidate(
        target="objpack:gain",
        name="gain",
        signature="(signal, factor=2.0)",
        parameters=[Parameter(name="signal", kind="positional_or_keyword", required=True)],
        examples=[
            Example(arguments={"factor": 3.0}, session=[typed]),
            Example(arguments={"factor": 1.0}),
        ],
    )


def test_the_constructors_documented_arguments_fill_the_step() -> None:
    guessed = Example(arguments={"samples": [1, 2, 3]}, origin="synthesised")
    shown = Example(arguments={"samples": [1.0, 3.0]}, has_expected=True, expected=2)
    constructors = {"objpack:Signal": _constructor(guessed, shown)}

    filled = fill_typed_steps(_gain(), constructors)

    [step] = filled.examples[0].session
    assert step.arguments == {"samples": [1.0, 3.0]}
    assert step.line == "sig = Signal(samples=[1.0, 3.0])"
    assert step.typed and step.into == "signal"


def test_without_a_documented_call_the_example_is_dropped() -> None:
    guessed = Example(arguments={"samples": [1, 2, 3]}, origin="synthesised")
    for constructors in ({"objpack:Signal": _constructor(guessed)}, {}):
        filled = fill_typed_steps(_gain(), constructors)
        assert [e.arguments for e in filled.examples] == [{"factor": 1.0}]
