"""design: classes (constructor + methods), usage-based ranking and examples, risky callables."""

from __future__ import annotations

from metaserver.agents.design.specs import design
from metaserver.agents.repo_docs.usage import Usage, UsageCall
from metaserver.contracts import (
    JSON,
    Candidate,
    CodeReport,
    Example,
    Parameter,
    ResultRead,
    SessionStep,
)

HANDLE: dict[str, JSON] = {
    "anyOf": [
        {"type": "object", "properties": {"start": {"type": "number"}}, "required": []},
        {"type": "object", "properties": {"handle": {"type": "string"}}, "required": ["handle"]},
    ]
}


def param(name: str, schema: dict[str, JSON], codec: str | None = None, **kw: JSON) -> Parameter:
    kind = kw.pop("kind", "positional_or_keyword")
    return Parameter(name=name, kind=kind, json_schema=schema, codec=codec, **kw)  # type: ignore[arg-type]


def cand(name: str, **kw: object) -> Candidate:
    parameters = kw.pop("parameters", [])
    return Candidate(
        target=f"pkg.mod:{name}",
        name=name,
        signature=f"{name}()",
        parameters=parameters,  # type: ignore[arg-type]
        summary="Documented.",
        **kw,  # type: ignore[arg-type]
    )


def accumulator() -> list[Candidate]:
    handle = param("handle", HANDLE, "new:pkg.mod:Acc", kind="positional_only")
    return [
        cand(
            "Acc",
            kind="constructor",
            parameters=[param("start", {"type": "number"}, required=False, default=0.0)],
            examples=[Example(arguments={"start": 3.0}, origin="usage")],
        ),
        cand(
            "Acc.add",
            kind="method",
            owner="pkg.mod:Acc",
            parameters=[handle, param("value", {"type": "number"})],
            usage=5,
        ),
        cand("Acc.total", kind="method", owner="pkg.mod:Acc", parameters=[handle]),
    ]


def test_a_method_brings_its_constructor_and_gets_an_instance() -> None:
    specs = design(CodeReport(packages=["pkg"], candidates=accumulator()), max_tools=5)
    names = [s.name for s in specs]
    assert names.index("acc_new") < names.index("acc_add")
    by_name = {s.name: s for s in specs}
    assert by_name["acc_new"].kind == "constructor"
    assert by_name["acc_new"].codecs == ["handle"]
    assert by_name["acc_add"].codecs == ["new"]
    # The instance is built from the constructor's example arguments.
    assert by_name["acc_add"].examples[0].arguments == {"handle": {"start": 3.0}, "value": 1.5}
    assert "Acc.add on the Acc given by `handle`" in by_name["acc_add"].description


def test_a_constructor_alone_is_not_a_tool() -> None:
    (ctor, *_) = accumulator()
    specs = design(CodeReport(packages=["pkg"], candidates=[ctor, cand("f")]), max_tools=5)
    assert [s.name for s in specs] == ["f"]


def test_the_budget_counts_the_constructor() -> None:
    specs = design(CodeReport(packages=["pkg"], candidates=accumulator()), max_tools=1)
    assert [s.kind for s in specs] != ["method"]  # never a method without room for its maker


def test_risky_private_and_handle_only_callables_are_left_out() -> None:
    only_handle = param("o", {"type": "object"}, "handle:pkg.mod:Opaque")
    report = CodeReport(
        packages=["pkg"],
        candidates=[
            cand("ok"),
            cand("wipe", dangerous="calls os.remove"),
            cand("old", deprecated=True),
            cand("Thing._hidden", kind="method"),
            cand("needs", parameters=[only_handle]),
        ],
    )
    assert [s.name for s in design(report, max_tools=10)] == ["ok"]


def test_usage_ranks_and_supplies_examples_with_expected_values() -> None:
    a = param("a", {"type": "integer"})
    b = param("b", {"type": "integer"}, required=False, default=0)
    report = CodeReport(
        packages=["pkg"],
        candidates=[
            cand("add", parameters=[a, b], positional=["a", "b"]),
            cand("zzz", in_all=True),
        ],
    )
    usage = Usage(
        counts={"add": 12},
        calls={
            "add": [
                UsageCall(args=[1, 2], expected=3, has_expected=True),
                UsageCall(args=[1, 2, 3]),  # too many arguments: not this function's call
                UsageCall(kwargs={"c": 1}),  # an unknown keyword
                UsageCall(),  # a bare call proves nothing
            ]
        },
    )
    specs = design(report, max_tools=2, usage=usage)
    assert specs[0].name == "add"
    (example,) = specs[0].examples
    assert example == Example(
        arguments={"a": 1, "b": 2}, expected=3, has_expected=True, origin="usage"
    )


def test_a_bare_function_call_whose_value_a_test_asserts_is_an_example() -> None:
    # ``aero = data.aero()`` then ``assert_allclose(aero[:3, :3], ref)``: the loader takes
    # nothing, so the test's value is the tool's. A bare method call stays out: its value
    # is the receiver's the test built.
    corner = ResultRead(op="index", keys=[{"slice": [None, 3, None]}])
    asserted = UsageCall(expected=[[1, 2, 3]], has_expected=True, reads=[corner])
    report = CodeReport(
        packages=["pkg"],
        candidates=[
            cand("aero"),
            cand("Thing", kind="constructor"),
            cand(
                "Thing.mean",
                kind="method",
                owner="pkg.mod:Thing",
                parameters=[param("handle", HANDLE, "new:pkg.mod:Thing", kind="positional_only")],
                positional=["handle"],
            ),
        ],
    )
    on_receiver = asserted.model_copy(update={"method": True})
    usage = Usage(calls={"aero": [asserted, UsageCall()], "mean": [on_receiver]})
    specs = {s.name: s for s in design(report, max_tools=5, usage=usage)}
    (example, *_) = specs["aero"].examples
    assert example.has_expected and example.expected == [[1, 2, 3]]
    assert example.reads == [corner] and example.origin == "usage"
    assert not any(e.has_expected for e in specs["thing_mean"].examples)


def test_colliding_function_names_say_their_module() -> None:
    first = cand("parse")
    second = first.model_copy(update={"target": "pkg.isoparser:parse"})
    specs = design(CodeReport(packages=["pkg"], candidates=[first, second]), max_tools=2)
    assert sorted(s.name for s in specs) == ["isoparser_parse", "parse"]


def test_a_method_gets_the_arguments_its_documented_calls_pass_but_not_their_results() -> None:
    text = param("text", {"type": "string"})
    handle = param("handle", HANDLE, "new:pkg.mod:Engine", kind="positional_only")
    report = CodeReport(
        packages=["pkg"],
        candidates=[
            cand("Engine", kind="constructor"),
            cand(
                "Engine.plural",
                kind="method",
                owner="pkg.mod:Engine",
                parameters=[handle, text],
                positional=["handle", "text"],
                # the probe bound a doctest's `p.plural('I')` to the receiver
                examples=[Example(arguments={"handle": "I"}, expected="we", has_expected=True)],
            ),
        ],
    )
    usage = Usage(
        calls={
            "plural": [
                UsageCall(args=["cat"], expected="cats", has_expected=True),
                UsageCall(args=["a", "b", "c"]),  # more arguments than the method takes
            ]
        },
        documented=["Engine", "plural"],
    )
    specs = design(report, max_tools=4, usage=usage)
    plural = next(s for s in specs if s.name == "engine_plural")
    # the call's argument, with a receiver built by the constructor, comes first: the
    # receiver the schema refuses goes last
    first, last = plural.examples
    assert first == Example(arguments={"text": "cat", "handle": {}}, origin="usage")
    assert last.arguments == {"handle": "I"}


def test_a_session_proof_brings_the_tools_it_replays_and_keeps_its_own_receiver() -> None:
    session = [
        SessionStep(line="acc = Acc()", target="pkg.mod:Acc"),
        SessionStep(
            line="acc.add(1.5)", target="pkg.mod:Acc.add", member="add", arguments={"value": 1.5}
        ),
    ]
    proof = Example(
        arguments={}, expected=1.5, has_expected=True, line="acc.total()", session=session
    )
    acc, add, total = accumulator()
    total = total.model_copy(update={"examples": [proof], "usage": 9})
    # Only room for total and what its session replays: add comes in although it ranks
    # below, before total, and total's proof is not given another receiver.
    specs = design(CodeReport(packages=["pkg"], candidates=[acc, add, total]), max_tools=3)
    assert [s.name for s in specs] == ["acc_new", "acc_add", "acc_total"]
    example, fallback = specs[2].examples
    assert example.session == session
    assert example.arguments == {}
    assert example.expected == 1.5
    # should the session fail, the constructor's JSON is a last receiver, with no value
    assert (fallback.session, fallback.has_expected) == ([], False)
    assert fallback.arguments == {"handle": {"start": 3.0}}


def test_a_session_whose_tools_cannot_all_be_chosen_is_not_used() -> None:
    session = [
        SessionStep(line="acc = Acc()", target="pkg.mod:Acc"),
        SessionStep(line="acc.reset()", target="pkg.mod:Acc.reset", member="reset"),
    ]
    proof = Example(
        arguments={}, expected=0, has_expected=True, line="acc.total()", session=session
    )
    acc, _, total = accumulator()
    total = total.model_copy(update={"examples": [proof]})
    specs = design(CodeReport(packages=["pkg"], candidates=[acc, total]), max_tools=3)
    by_name = {s.name: s for s in specs}
    # No tool replays acc.reset(): the example falls back to a receiver of our own, with
    # nothing documented to compare.
    assert all(not e.has_expected for e in by_name["acc_total"].examples)
    assert by_name["acc_total"].examples[0].arguments == {"handle": {"start": 3.0}}


HANDLE_ONLY: dict[str, JSON] = {
    "type": "object",
    "properties": {"handle": {"type": "string"}},
    "required": ["handle"],
}


def versions() -> list[Candidate]:
    """A class passed by handle only, a class method that builds it, and a method."""
    handle = param("handle", HANDLE_ONLY, "handle:pkg.mod:Ver", kind="positional_only")
    unpublished = SessionStep(line='v = old_parse("3")', target="pkg.mod:old_parse")
    return [
        cand(
            "Ver",
            kind="constructor",
            parameters=[param("major", {"type": "integer"})],
            examples=[Example(arguments={"major": 4}, origin="doctest")],
        ),
        cand(
            "Ver.parse",
            parameters=[param("text", {"type": "string"})],
            returns="pkg.mod:Ver",
            usage=5,
        ),
        cand(
            "Ver.bump",
            kind="method",
            owner="pkg.mod:Ver",
            parameters=[handle],
            usage=5,
            # its docstring builds the receiver with a function that is no tool
            examples=[Example(arguments={}, origin="doctest", session=[unpublished])],
        ),
        cand("render", parameters=[param("text", {"type": "string"})], returns="pkg.mod:Ver"),
    ]


def test_a_class_method_that_builds_its_class_keeps_its_object_as_a_handle() -> None:
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=versions()), 6)}
    assert specs["Ver_parse"].keep
    # a module function that returns the class is an ordinary function: its data comes back
    assert not specs["render"].keep
    assert not specs["ver_new"].keep and specs["ver_new"].kind == "constructor"


def test_a_handle_only_receiver_is_built_by_its_constructor_tool() -> None:
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=versions()), 6)}
    [example] = specs["ver_bump"].examples
    # not a made-up handle id, which every call refuses: the constructor's documented call
    [step] = example.session
    assert (step.target, step.arguments, step.line) == (
        "pkg.mod:Ver",
        {"major": 4},
        "handle = Ver(major=4)",
    )


def test_a_method_whose_sessions_all_chain_also_gets_the_constructors_receiver() -> None:
    candidates = versions()
    # the README calls the constructor too, so it is a tool of its own
    candidates[0] = candidates[0].model_copy(update={"documented": 0})
    chained = SessionStep(
        line="v.bump().bump()", target="pkg.mod:Ver.bump", member="bump", chained=True
    )
    built = SessionStep(
        line='v = Ver.parse("3")', target="pkg.mod:Ver.parse", arguments={"text": "3"}
    )
    candidates[2] = candidates[2].model_copy(
        update={
            "examples": [
                Example(
                    arguments={},
                    origin="doctest",
                    has_expected=True,
                    expected="Ver(major=5)",
                    wrapper="repr",
                    session=[built, chained],
                )
            ]
        }
    )
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=candidates), 6)}
    proof, fallback = specs["ver_bump"].examples
    assert proof.has_expected and [s.line for s in proof.session] == [built.line, chained.line]
    assert not fallback.has_expected
    assert [s.target for s in fallback.session] == ["pkg.mod:Ver"]


def test_a_receiver_only_a_handle_can_be_is_built_by_its_constructor_tool() -> None:
    # No JSON form builds an Opt (codec ``handle``): a handle id made up from the schema
    # names no object, so the constructor tool builds it with its documented arguments.
    handle = param(
        "handle",
        {"type": "object", "properties": {"handle": {"type": "string"}}, "required": ["handle"]},
        "handle:pkg.mod:Opt",
        kind="positional_only",
    )
    candidates = [
        cand(
            "Opt",
            kind="constructor",
            parameters=[param("steps", {"type": "integer"})],
            examples=[Example(arguments={"steps": 3}, origin="doctest")],
            usage=3,
            documented=0,  # the README calls it: a tool of its own
        ),
        cand(
            "Opt.run",
            kind="method",
            owner="pkg.mod:Opt",
            parameters=[handle, param("fmax", {"type": "number"})],
            examples=[
                # a README session replayed with a tool that is not here: left out
                Example(
                    arguments={"fmax": 0.01},
                    session=[SessionStep(line="o = make()", target="pkg.other:make")],
                ),
                Example(arguments={"fmax": 0.02}, origin="usage"),
            ],
            usage=5,
        ),
    ]
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=candidates), 5)}
    [example] = specs["opt_run"].examples
    assert example.arguments["fmax"] == 0.02
    assert [(s.target, s.arguments) for s in example.session] == [("pkg.mod:Opt", {"steps": 3})]
    assert example.session[0].line == "handle = Opt(steps=3)"
    # a constructor the docs never call with literals: built as its own tool is proven
    guessed = Example(arguments={"steps": 1}, origin="synthesised")
    undocumented = [candidates[0].model_copy(update={"examples": [guessed]}), candidates[1]]
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=undocumented), 5)}
    [example] = specs["opt_run"].examples
    assert [s.arguments for s in example.session] == [{"steps": 1}]
    assert not example.has_expected
    # nothing documented to build it with: the constructor's own synthesised arguments,
    # never a made-up handle id
    bare = [candidates[0].model_copy(update={"examples": []}), candidates[1]]
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=bare), 5)}
    for example in specs["opt_run"].examples:
        assert [s.target for s in example.session] == ["pkg.mod:Opt"]
        assert isinstance(example.session[0].arguments["steps"], int)


def test_a_receiver_built_from_data_by_position_and_keyword_is_built_by_its_constructor_tool() -> (
    None
):
    # ``bs = IIDBootstrap(x, y=y)`` then ``bs.conf_int(...)``: the ``new`` codec takes one
    # list or one object, never both; the constructor tool takes its example as it is.
    handle = param("handle", HANDLE, "new:pkg.mod:Boot", kind="positional_only")
    data = {"args": [[1.0, 2.0, 3.0]], "kwargs": {"y": [4.0, 5.0, 6.0]}}
    array = {"type": "array", "items": {}}
    candidates = [
        cand(
            "Boot",
            kind="constructor",
            parameters=[
                param("args", array, "numpy", kind="var_positional", required=False),
                param("seed", {"type": "integer"}, kind="keyword_only", required=False),
                param("kwargs", {"type": "object"}, "numpy", kind="var_keyword", required=False),
            ],
            examples=[Example(arguments=data, origin="doctest")],
            usage=3,
            documented=0,
        ),
        cand(
            "Boot.conf_int",
            kind="method",
            owner="pkg.mod:Boot",
            parameters=[handle, param("reps", {"type": "integer"}, required=False, default=10)],
            usage=5,
            documented=1,
        ),
    ]
    specs = {s.name: s for s in design(CodeReport(packages=["pkg"], candidates=candidates), 5)}
    [example, *_] = specs["boot_conf_int"].examples
    assert [(s.target, s.arguments) for s in example.session] == [("pkg.mod:Boot", data)]
