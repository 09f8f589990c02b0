"""Objects the docs never built: typed steps and abstract receivers, from documented calls."""

from __future__ import annotations

from metaserver.agents.design.builders import Builders
from metaserver.agents.design.specs import usable
from metaserver.agents.design.typed import built_parameters, documented_receiver, fill_typed_steps
from metaserver.contracts import Candidate, Example, Parameter, SessionStep

GUESSED = Example(arguments={"samples": [1, 2, 3]}, origin="synthesised")


def _parameter(name: str) -> Parameter:
    return Parameter(name=name, kind="positional_or_keyword", required=True)


def _constructor(
    target: str, *examples: Example, bases: tuple[str, ...] = (), name: str = ""
) -> Candidate:
    return Candidate(
        target=target,
        name=name or target.rpartition(":")[2],
        signature="(samples)",
        parameters=[_parameter("samples")],
        kind="constructor",
        examples=list(examples),
        bases=list(bases),
    )


def _gain() -> Candidate:
    typed = SessionStep(
        line="sig = Signal(...)", target="objpack:Signal", into="signal", typed=True
    )
    return Candidate(
        target="objpack:gain",
        name="gain",
        signature="(signal, factor=2.0)",
        parameters=[_parameter("signal")],
        examples=[
            Example(arguments={"factor": 3.0}, session=[typed]),
            Example(arguments={"factor": 1.0}),
        ],
    )


def test_the_constructors_documented_arguments_fill_the_step() -> None:
    shown = Example(arguments={"samples": [1.0, 3.0]}, has_expected=True, expected=2)
    builders = Builders([_constructor("objpack:Signal", GUESSED, shown)])

    filled = fill_typed_steps(_gain(), builders)

    [step] = filled.examples[0].session
    assert step.arguments == {"samples": [1.0, 3.0]}
    assert step.line == "sig = Signal(samples=[1.0, 3.0])"
    assert step.typed and step.into == "signal" and step.target == "objpack:Signal"


def test_a_documented_factory_builds_it_when_the_constructor_is_not_shown() -> None:
    factory = Candidate(
        target="objpack:signal",
        name="signal",
        signature="(*samples)",
        parameters=[],
        returns="objpack:Signal",
        examples=[
            GUESSED,
            Example(arguments={"samples": [9.0]}, origin="usage"),  # matched by name only
            Example(arguments={"samples": [2.0]}, origin="doctest"),
        ],
    )
    builders = Builders([_constructor("objpack:Signal", GUESSED), factory])

    [step] = fill_typed_steps(_gain(), builders).examples[0].session
    assert (step.target, step.arguments, step.into) == (
        "objpack:signal",
        {"samples": [2.0]},
        "signal",
    )
    # A factory the guides call as the package's own: usage's calls of it count too.
    shown = factory.model_copy(update={"documented": 1})
    [step] = fill_typed_steps(_gain(), Builders([shown])).examples[0].session
    assert step.arguments == {"samples": [9.0]}


def test_without_a_documented_call_the_example_is_dropped() -> None:
    for candidates in ([_constructor("objpack:Signal", GUESSED)], []):
        filled = fill_typed_steps(_gain(), Builders(candidates))
        assert [e.arguments for e in filled.examples] == [{"factor": 1.0}]


def test_an_abstract_base_method_gets_a_subclass_receiver() -> None:
    base = _constructor("objpack:Base", GUESSED)
    concrete = _constructor(
        "objpack:Concrete",
        Example(arguments={"samples": [4.0]}, origin="doctest"),
        bases=("objpack:Base",),
    )
    method = Candidate(
        target="objpack:Base.peak",
        name="Base.peak",
        signature="(handle, scale=1)",
        parameters=[_parameter("handle")],
        kind="method",
        owner="objpack:Base",
        defined_in="objpack.core:Base",
    )
    other = _constructor(
        "objpack:Other",
        Example(arguments={"samples": [5.0]}, origin="doctest"),
        bases=("objpack:Base",),
    ).model_copy(update={"documented": 0})
    builders = Builders([base, concrete, other, method])

    # One example per subclass's documented object, the one the guides call first first:
    # validation tries the next when one fails.
    examples = documented_receiver(method, builders).examples
    steps = [(s.target, s.arguments, s.into) for e in examples for s in e.session]
    assert steps == [
        ("objpack:Other", {"samples": [5.0]}, None),
        ("objpack:Concrete", {"samples": [4.0]}, None),
    ]
    # The copy listed under a subclass the docs never build is left to the defining one.
    inherited = method.model_copy(
        update={"target": "objpack:Other2.peak", "owner": "objpack:Other2"}
    )
    other2 = _constructor("objpack:Other2", GUESSED, bases=("objpack:Base",))
    with_copy = Builders([base, concrete, other, other2, inherited])
    assert documented_receiver(inherited, with_copy).examples == []
    # A class whose own constructor the docs call keeps that one (specs.py builds it).
    concrete_method = method.model_copy(
        update={"target": "objpack:Concrete.peak", "owner": "objpack:Concrete"}
    )
    assert documented_receiver(concrete_method, builders).examples == []


def _degree(*examples: Example) -> Candidate:
    """``degree(G, nbunch=None)`` whose ``G`` only a handle gives (a Graph, by its docs or
    by the guides' variable ``G``), the class defined in a submodule the package exports."""
    graph = Parameter(
        name="G", kind="positional_or_keyword", required=True, codec="handle:graphs.core:Graph"
    )
    nbunch = Parameter(name="nbunch", kind="positional_or_keyword", required=False)
    return Candidate(
        target="graphs:degree",
        name="degree",
        signature="(G, nbunch=None)",
        parameters=[graph, nbunch],
        examples=list(examples),
    )


def test_a_handle_parameter_no_example_builds_gets_its_classes_documented_object() -> None:
    shown = Example(arguments={"samples": [1, 2]}, origin="doctest")
    builders = Builders([_constructor("graphs:Graph", shown)])

    # no example at all: one is made, whose session builds G
    [made] = built_parameters(_degree(), builders).examples
    [step] = made.session
    assert step.target == "graphs:Graph" and step.into == "G" and step.typed
    assert step.arguments == {"samples": [1, 2]} and "G" not in made.arguments

    # a documented call with a guessed G keeps its other arguments, not its output
    guessed = Example(arguments={"G": "a", "nbunch": [1]}, has_expected=True, expected=2)
    [kept] = built_parameters(_degree(guessed), builders).examples
    assert kept.arguments == {"nbunch": [1]} and not kept.has_expected
    assert [s.into for s in kept.session] == ["G"]
    assert usable(built_parameters(_degree(guessed), builders))
    assert not usable(_degree(guessed))


def test_without_a_documented_object_the_handle_parameter_stays_unbuilt() -> None:
    builders = Builders([_constructor("graphs:Graph", GUESSED)])  # only a guessed call
    assert built_parameters(_degree(), builders).examples == []
    # nor is a class of another name, or two of the same name, taken for it
    shown = Example(arguments={"samples": [1]}, origin="doctest")
    two = Builders([_constructor("graphs:Graph", shown), _constructor("graphs.sub:Graph", shown)])
    assert two.constructor_of("graphs.sub.core:Graph") is None
    assert two.constructor_of("graphs.core:Graph") == "graphs:Graph"
    assert (
        Builders([_constructor("graphs:Tree", shown)]).constructor_of("graphs.core:Graph") is None
    )
