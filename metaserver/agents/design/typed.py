"""Objects the docs never built, built by the tools that build their class.

``K, _, _ = ct.lqr(sys)`` in a guide whose ``sys`` is set up off the page: the probe
(``probe/built_arguments.py``) makes ``sys`` a ``typed`` session step of the constructor
of the class the
parameter's annotation or docstring type names (``sys : StateSpace``). Which arguments build
one is known only here, where every candidate's examples are (``builders.py``): the class's
own documented call, else its documented factory's or a subclass's. A step with none drops
its example, since an object built from guessed arguments would prove nothing.

A method defined on a base class whose own constructor the docs never call (an abstract
``LTI``, whose instance raises "not implemented") gets its receiver the same way, from a
subclass's documented construction, as a one-step session.
"""

from __future__ import annotations

from metaserver.agents.design.builders import Builders, documented_arguments
from metaserver.agents.design.meaning import callable_context
from metaserver.agents.design.synthesis import synthesise_example
from metaserver.contracts import Candidate, Example, SessionStep

MAX_RECEIVERS = 3
"""Subclasses' documented objects a base class's method is tried on, at most."""


def fill_typed_steps(candidate: Candidate, builders: Builders) -> Candidate:
    """The candidate with each ``typed`` step built by its class's documented builder;
    examples whose steps have none are dropped."""
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
            variable = step.line.partition("=")[0].strip() or step.into or "value"
            built = builders.steps(step.target, variable)[:1]
            if not built:
                steps = None
                continue
            steps.append(built[0].model_copy(update={"into": step.into, "typed": True}))
        if steps is not None:
            examples.append(example.model_copy(update={"session": steps}))
    return candidate.model_copy(update={"examples": examples})


def built_parameters(candidate: Candidate, builders: Builders) -> Candidate:
    """A function whose required parameter takes only a handle (its type is a class of
    the package that JSON does not build: an annotation, a docstring type, or the class the
    guides' variable of that name holds) with each example that does not build it given a
    step that does, from the class's documented builder (``into`` the parameter). Without
    it such a function was no tool at all (``usable``), and a JSON literal guessed for it
    could not pass either. A parameter the docs build no object for is left as it was."""
    if candidate.kind != "function":
        return candidate
    steps: dict[str, SessionStep] = {}
    for parameter in candidate.parameters:
        codec = parameter.codec or ""
        if not (parameter.required and codec.startswith("handle:")):
            continue
        target = builders.constructor_of(codec.partition(":")[2])
        built = builders.steps(target, parameter.name)[:1] if target else []
        if built:
            steps[parameter.name] = built[0].model_copy(
                update={"into": parameter.name, "typed": True}
            )
    if not steps:
        return candidate
    plain = [p for p in candidate.parameters if p.name not in steps]
    context = callable_context(candidate.name, candidate.summary)
    examples = list(candidate.examples) or [synthesise_example(plain, context)]
    filled: list[Example] = []
    for example in examples:
        given = {s.into for s in example.session if s.into}
        missing = [s for name, s in steps.items() if name not in given]
        if not missing:
            filled.append(example)
            continue
        arguments = {k: v for k, v in example.arguments.items() if k not in steps}
        # The documented output came from an object we did not build: no expected value.
        update = {"arguments": arguments, "session": [*example.session, *missing]}
        filled.append(example.model_copy(update=update | {"expected": None, "has_expected": False}))
    return candidate.model_copy(update={"examples": filled})


def documented_receiver(candidate: Candidate, builders: Builders) -> Candidate:
    """A method whose class's constructor the docs never call, with its examples that build
    no receiver of their own given one from a subclass's (or factory's) documented call."""
    owner = builders.constructors.get(candidate.owner or "")
    if candidate.kind != "method" or not candidate.parameters or owner is None:
        return candidate
    if documented_arguments(owner) is not None:
        return candidate  # the constructor's own documented call builds it (specs.py)
    defining = (candidate.defined_in or "").rpartition(":")[2]
    if defining and defining != owner.target.rpartition(":")[2]:
        # A copy listed under a subclass (FRD.bandwidth, defined by LTI): the defining
        # class's own candidate gets the receivers, and stays the one tool kept for both.
        return candidate
    handle = candidate.parameters[0].name
    steps = builders.steps(owner.target, handle)[:MAX_RECEIVERS]
    if not steps:
        return candidate
    examples = [
        e
        if e.session or handle in e.arguments
        else e.model_copy(update={"session": [steps[0]], "expected": None, "has_expected": False})
        for e in candidate.examples
    ]
    # The same call on the other subclasses' documented objects: validation tries another
    # example when one fails, and a base's method may need what only some subclasses define.
    plain = next(
        (e for e in candidate.examples if not e.session and handle not in e.arguments),
        None
        if candidate.examples
        else synthesise_example(
            candidate.parameters[1:], callable_context(candidate.name, candidate.summary)
        ),
    )
    if plain is not None:
        if not candidate.examples:
            examples = [plain.model_copy(update={"session": [steps[0]]})]
        examples += [
            plain.model_copy(update={"session": [s], "expected": None, "has_expected": False})
            for s in steps[1:]
        ]
    return candidate.model_copy(update={"examples": examples})
