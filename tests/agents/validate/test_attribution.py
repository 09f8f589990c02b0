"""exact_replay: the repository is blamed only for its own example, replayed as written."""

from __future__ import annotations

from metaserver.agents.validate.attribution import exact_replay, text_of_itself
from metaserver.contracts import Example, Parameter, SessionStep, ToolSpec

HANDLE = Parameter(name="handle", kind="positional_only")


def spec(kind: str) -> ToolSpec:
    parameters = [HANDLE] if kind == "method" else []
    return ToolSpec(
        name="t",
        description="d",
        target="pkg:Grid.code",
        parameters=parameters,
        kind=kind,  # type: ignore[arg-type]
    )


def example(**kw: object) -> Example:
    base: dict[str, object] = {"arguments": {}, "expected": 4328, "has_expected": True}
    return Example(**{**base, **kw})  # type: ignore[arg-type]


def test_a_method_line_with_its_own_session_is_replayed_as_written() -> None:
    built = SessionStep(line='g = Grid("A1")', target="pkg:Grid", arguments={"name": "A1"})
    assert exact_replay(spec("method"), example(line="g.code()", session=[built])) == [
        'g = Grid("A1")',
        "g.code()",
    ]
    inline = SessionStep(line='Grid("A1").code()', target="pkg:Grid")
    assert exact_replay(spec("method"), example(line='Grid("A1").code()', session=[inline])) == [
        'Grid("A1").code()'
    ]


def test_a_method_line_on_a_receiver_of_ours_is_not_the_repositorys_example() -> None:
    assert exact_replay(spec("method"), example(line="g.code()")) is None


def test_assembled_examples_are_ours() -> None:
    function = spec("function")
    assert exact_replay(function, example(line="code(1)")) == ["code(1)"]
    assert exact_replay(function, example()) is None  # no line as written
    assert exact_replay(function, example(line="code(1)", origin="usage")) is None
    assert exact_replay(function, example(line="code(1)", wrapper="repr")) is None
    assert exact_replay(function, example(line="code(1)", has_expected=False)) is None


def test_an_object_handed_on_as_data_is_not_the_examples_own() -> None:
    # ``G = Graph()`` then ``degree(G)``: the replay is the example's only when the call got
    # the graph itself (a handle), not the list of nodes a codec made of it.
    built = SessionStep(line="G = Graph()", target="pkg:Graph", into="graph")
    listed = [
        SessionStep(line="u = Dot(1)", target="pkg:Dot", into="dots", item=0),
        SessionStep(line="v = Dot(2)", target="pkg:Dot", into="dots", item=1),
    ]
    function = spec("function")
    lines = ["G = Graph()", "degree(G)"]
    one = example(line="degree(G)", session=[built])
    assert exact_replay(function, one, {"graph": {"handle": "h1"}}) == lines
    assert exact_replay(function, one, {"graph": [1, 2, 3]}) is None
    two = example(line="total([u, v])", session=listed)
    both = {"dots": [{"handle": "h1"}, {"handle": "h2"}]}
    assert exact_replay(function, two, both) is not None
    assert exact_replay(function, two, {"dots": [{"handle": "h1"}, 2.0]}) is None


def test_an_arguments_setup_calls_are_part_of_the_replayed_example() -> None:
    built = SessionStep(line="net = Net()", target="pkg:Net", into="net")
    setup = SessionStep(line='net.link("A", "B")', target="pkg:Net.link", member="link", on=0)
    replay = exact_replay(
        spec("function"),
        example(line='route(net, "A", "B")', session=[built, setup]),
        {"net": {"handle": "h1"}},
    )
    assert replay == ["net = Net()", 'net.link("A", "B")', 'route(net, "A", "B")']


def test_a_text_is_the_objects_own_only_when_a_handle_brought_it() -> None:
    shown = example(wrapper="str", expected="2.0", line="str(v.bump())")
    handle = {"handle": "h_v", "type": "v.Version", "repr": "Version(2, 0)", "text": "2.1"}
    assert text_of_itself(shown, handle)
    # a value our codecs made JSON (a date as ISO text): its str is no longer the object's
    assert not text_of_itself(shown, "2020-01-01T00:00:00")
    assert not text_of_itself(shown, 2)
    assert text_of_itself(shown, None)
    # any other comparison is not about text
    assert text_of_itself(example(), 5)
