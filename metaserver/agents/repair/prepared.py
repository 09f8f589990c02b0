"""A method retried on a receiver that another of its class's methods set up first.

An estimator's ``transform``, ``predict`` or ``score`` refuses a receiver nobody fitted
("This StandardScaler instance is not fitted yet"), and a running total's ``mean`` has
nothing to average before ``push``: the method's own examples built the receiver from its
constructor alone (a test's ``model.predict(X)`` whose ``model.fit(X)`` came on another
line, or a guessed receiver). When a method of the same class passed validation (``fit``
with the repository's data), its call is the setup step the failed one lacked: the retry
builds the receiver as that call's receiver was built (its own session, or the constructor
with the JSON the ``new`` codec took), replays that call on it, then calls the failed
method, with the data the setup call was given where the two take a parameter of the same
name (a model predicts on data shaped as what it was fitted on). The retry is our assembly
(no expected value, no line of the repository's): it proves that the call runs, and its
failure is never blamed on the repository (validate/attribution.py).
"""

from __future__ import annotations

import json

from metaserver.agents.validate.calls import MAX_SETUP_ATTEMPTS
from metaserver.contracts import JSON, Example, Parameter, SessionStep, ToolEvidence, ToolSpec

__all__ = ["prepared_examples"]


def prepared_examples(
    spec: ToolSpec, specs: list[ToolSpec], evidence: dict[str, ToolEvidence]
) -> list[Example]:
    """Examples of the failed method ``spec`` on receivers its passed siblings set up; none
    for a function, a method whose receiver is no object built by a tool or the ``new``
    codec, or a class none of whose other methods passed. Siblings that share a parameter
    name come first, MAX_SETUP_ATTEMPTS of them at most."""
    if spec.kind != "method" or not spec.parameters or not _takes_object(spec.parameters[0]):
        return []
    cls = spec.target.rpartition(".")[0]
    constructors = {s.target for s in specs if s.kind == "constructor"}
    failed = evidence.get(spec.name)
    own = _own_arguments(spec, failed)
    names = {p.name for p in spec.parameters[1:]}
    found: list[tuple[bool, Example]] = []
    for sibling in specs:
        if sibling.name == spec.name or sibling.kind != "method" or not sibling.parameters:
            continue
        if sibling.target.rpartition(".")[0] != cls:
            continue
        passed = evidence.get(sibling.name)
        if passed is None or passed.status != "passed" or passed.evidence is None:
            continue
        setup = _setup_steps(sibling, passed, cls, constructors)
        if setup is None:
            continue
        given = setup[-1].arguments
        shared = {name: given[name] for name in names if name in given}
        arguments = {**own, **shared}
        found.append((bool(shared), Example(arguments=arguments, origin="usage", session=setup)))
    found.sort(key=lambda pair: not pair[0])  # stable: the specs' order within each group
    return [example for _, example in found[:MAX_SETUP_ATTEMPTS]]


def _takes_object(receiver: Parameter) -> bool:
    return (receiver.codec or "").startswith(("new:", "handle:"))


def _own_arguments(spec: ToolSpec, failed: ToolEvidence | None) -> dict[str, JSON]:
    """The failed call's arguments other than its receiver (its first example's, when the
    evidence holds none)."""
    receiver = spec.parameters[0].name
    if failed is not None and failed.evidence is not None:
        given = failed.evidence.arguments
    elif spec.examples:
        given = spec.examples[0].arguments
    else:
        given = {}
    return {name: value for name, value in given.items() if name != receiver}


def _setup_steps(
    sibling: ToolSpec, passed: ToolEvidence, cls: str, constructors: set[str]
) -> list[SessionStep] | None:
    """The steps that built the sibling's receiver, then the sibling's own call on it; None
    when that receiver cannot be built again (a handle another call made, an argument an
    earlier step built)."""
    assert passed.evidence is not None
    receiver = sibling.parameters[0].name
    arguments = {k: v for k, v in passed.evidence.arguments.items() if k != receiver}
    if any(_is_handle(value) for value in arguments.values()):
        return None  # an object another call built: it is gone with that call's session
    member = sibling.target.rpartition(".")[2]
    variable = "obj"
    call = SessionStep(
        line=f"{variable}.{member}({_shown(arguments)})",
        target=sibling.target,
        member=member,
        arguments=arguments,
    )
    session = passed.evidence.session
    if session:
        if any(s.into is not None or s.on is not None or s.takes for s in session):
            return None  # arguments built by steps: not a receiver's setup alone
        return [_plain(s) for s in session] + [call]
    built = passed.evidence.arguments.get(receiver)
    if not isinstance(built, dict) or _is_handle(built) or cls not in constructors:
        return None
    if any(_is_handle(value) for value in built.values()):
        return None
    name = cls.rpartition(":")[2]
    construct = SessionStep(
        line=f"{variable} = {name}({_shown(built)})", target=cls, arguments=dict(built)
    )
    return [construct, call]


def _plain(step: SessionStep) -> SessionStep:
    """A replayed step as a step to replay (validation fills ``tool`` and ``receiver``)."""
    return step.model_copy(update={"tool": None, "receiver": None})


def _is_handle(value: JSON) -> bool:
    return isinstance(value, dict) and isinstance(value.get("handle"), str)


def _shown(arguments: dict[str, JSON]) -> str:
    return ", ".join(f"{name}={json.dumps(value)[:60]}" for name, value in arguments.items())
