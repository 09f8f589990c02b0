"""A failed method retried on a receiver that a passed method of its class set up."""

from __future__ import annotations

from metaserver.agents.repair.prepared import prepared_examples
from metaserver.contracts import (
    JSON,
    Evidence,
    Parameter,
    SessionStep,
    ToolEvidence,
    ToolSpec,
)

_CLS = "pkg.scale:Scaler"


def _param(name: str, codec: str | None = None) -> Parameter:
    return Parameter(name=name, kind="positional_or_keyword", codec=codec)


def _method(member: str, *names: str, codec: str = f"new:{_CLS}") -> ToolSpec:
    return ToolSpec(
        name=f"scaler_{member}",
        description=member,
        target=f"{_CLS}.{member}",
        kind="method",
        parameters=[_param("handle", codec), *(_param(n) for n in names)],
    )


_CONSTRUCTOR = ToolSpec(
    name="scaler_new",
    description="A scaler.",
    target=_CLS,
    kind="constructor",
    parameters=[_param("copy")],
)


def _result(
    spec: ToolSpec, status: str, arguments: dict[str, JSON], session: tuple[SessionStep, ...] = ()
) -> ToolEvidence:
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="passed" if status == "passed" else "failed",
        failure_type=None if status == "passed" else "api_inference_error",
        error=None if status == "passed" else "This Scaler instance is not fitted yet.",
        evidence=Evidence(arguments=arguments, session=list(session)),
    )


def test_a_method_is_retried_after_the_sibling_call_that_passed_on_its_data() -> None:
    fit, transform = _method("fit", "X"), _method("transform", "X", "copy")
    evidence = {
        "scaler_fit": _result(fit, "passed", {"handle": {"copy": True}, "X": [[1.0], [3.0]]}),
        "scaler_transform": _result(transform, "failed", {"handle": {}, "X": [[0]], "copy": 1}),
    }
    (example,) = prepared_examples(transform, [_CONSTRUCTOR, fit, transform], evidence)
    construct, setup = example.session
    # built as the passed call's receiver was, then that call replayed on it
    assert (construct.target, construct.member, construct.arguments) == (_CLS, None, {"copy": True})
    assert (setup.target, setup.member, setup.arguments) == (
        fit.target,
        "fit",
        {"X": [[1.0], [3.0]]},
    )
    # the data it was fitted on, its own other arguments, and no receiver of its own
    assert example.arguments == {"X": [[1.0], [3.0]], "copy": 1}
    assert not example.has_expected and example.line is None


def test_a_sibling_whose_receiver_its_own_session_built_passes_that_session_on() -> None:
    fit = _method("fit", "X", codec=f"handle:{_CLS}")
    score = _method("score", "X", codec=f"handle:{_CLS}")
    built = SessionStep(line="s = Scaler()", target=_CLS, tool="scaler_new")
    evidence = {
        "scaler_fit": _result(fit, "passed", {"handle": {"handle": "h1"}, "X": [1]}, (built,)),
        "scaler_score": _result(score, "failed", {"handle": {"handle": "h2"}, "X": [2]}),
    }
    (example,) = prepared_examples(score, [_CONSTRUCTOR, fit, score], evidence)
    assert [s.line for s in example.session] == ["s = Scaler()", "obj.fit(X=[1])"]
    assert example.session[0].tool is None  # validation replays it afresh


def test_nothing_to_prepare_without_a_passed_sibling_or_a_rebuildable_receiver() -> None:
    fit, transform = _method("fit", "X"), _method("transform", "X")
    failed = _result(transform, "failed", {"handle": {}, "X": [0]})
    specs = [_CONSTRUCTOR, fit, transform]
    unfitted = {"scaler_fit": _result(fit, "failed", {"handle": {}, "X": [1]})}
    assert prepared_examples(transform, specs, {**unfitted, "scaler_transform": failed}) == []
    # a receiver that was a handle some other call made cannot be built again
    by_handle = {"scaler_fit": _result(fit, "passed", {"handle": {"handle": "h"}, "X": [1]})}
    assert prepared_examples(transform, specs, {**by_handle, "scaler_transform": failed}) == []
    # no constructor tool to build it with
    passed = {"scaler_fit": _result(fit, "passed", {"handle": {}, "X": [1]})}
    assert prepared_examples(transform, [fit, transform], passed) == []
    # another class's method is no setup of this one
    other = fit.model_copy(update={"target": "pkg.scale:Other.fit", "name": "other_fit"})
    assert prepared_examples(transform, [_CONSTRUCTOR, other, transform], passed) == []


def test_siblings_that_share_a_parameter_name_come_first() -> None:
    push, fit, mean = _method("push", "value"), _method("fit", "X"), _method("mean", "X")
    evidence = {
        "scaler_push": _result(push, "passed", {"handle": {}, "value": 2}),
        "scaler_fit": _result(fit, "passed", {"handle": {}, "X": [1]}),
    }
    examples = prepared_examples(mean, [_CONSTRUCTOR, push, fit, mean], evidence)
    assert [e.session[-1].member for e in examples] == ["fit", "push"]
    assert examples[0].arguments == {"X": [1]} and examples[1].arguments == {}
