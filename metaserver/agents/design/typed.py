"""Arguments the docs never built, built by their class's constructor tool.

``K, _, _ = ct.lqr(sys)`` in a guide whose ``sys`` is set up off the page: the probe
(``probe_values``) makes ``sys`` a ``typed`` session step of the constructor of the class the
parameter's annotation or docstring type names (``sys : StateSpace``). Which arguments that
constructor takes is known only here, where every candidate's examples are: the
constructor's own first documented call (a docstring's, a guide's or a test's literal
arguments), never a synthesised one. A step with no such call drops its example, since an
object built from guessed arguments would prove nothing about the documented call.
"""

from __future__ import annotations

import json

from metaserver.contracts import JSON, Candidate, Example, SessionStep


def fill_typed_steps(candidate: Candidate, constructors: dict[str, Candidate]) -> Candidate:
    """The candidate with each ``typed`` step's arguments taken from its constructor's own
    documented example; examples whose steps have none are dropped."""
    if not any(s.typed for e in candidate.examples for s in e.session):
        return candidate
    examples: list[Example] = []
    for example in candidate.examples:
        steps: list[SessionStep] | None = []
        for step in example.session:
            if steps is None:
                break
            if not step.typed:
                steps.append(step)
                continue
            filled = _filled(step, constructors.get(step.target))
            steps = None if filled is None else [*steps, filled]
        if steps is not None:
            examples.append(example.model_copy(update={"session": steps}))
    return candidate.model_copy(update={"examples": examples})


def _filled(step: SessionStep, constructor: Candidate | None) -> SessionStep | None:
    arguments = documented_arguments(constructor) if constructor is not None else None
    if constructor is None or arguments is None:
        return None
    variable = step.line.partition("=")[0].strip() or step.into or "value"
    shown = ", ".join(f"{name}={json.dumps(value)}" for name, value in arguments.items())
    line = f"{variable} = {constructor.name}({shown})"
    return step.model_copy(update={"arguments": arguments, "line": line})


def documented_arguments(constructor: Candidate) -> dict[str, JSON] | None:
    """The arguments of the constructor's first call the library's own text shows with
    literals alone (no session of its own to replay first); None when it shows none."""
    for example in constructor.examples:
        if example.origin in ("synthesised", "llm") or example.session:
            continue
        return dict(example.arguments)
    return None
