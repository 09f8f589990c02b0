"""design: which callables become tools, their names and descriptions, synthesised calls."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from metaserver.agents.design.specs import MAX_DESCRIPTION, design, synthesise_example
from metaserver.contracts import JSON, Candidate, CodeReport, Example, Parameter

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def candidate(
    name: str,
    *,
    examples: list[Example] | None = None,
    in_all: bool = False,
    top_level: bool = False,
    doc: str = "",
    summary: str = "",
    parameters: list[Parameter] | None = None,
) -> Candidate:
    return Candidate(
        target=f"pkg.mod:{name}",
        name=name,
        signature=f"{name}()",
        parameters=parameters or [],
        doc=doc,
        summary=summary,
        examples=examples or [],
        in_all=in_all,
        top_level=top_level,
    )


def param(name: str, schema: dict[str, JSON], required: bool = True) -> Parameter:
    return Parameter(
        name=name,
        kind="positional_or_keyword",
        json_schema=schema,
        required=required,
        default=None if required else schema.get("default"),
    )


def report(*candidates: Candidate) -> CodeReport:
    return CodeReport(packages=["pkg"], candidates=list(candidates))


WITH_EXPECTED = Example(arguments={}, expected=1, has_expected=True)
WITHOUT_EXPECTED = Example(arguments={})


def test_ranking_prefers_provable_then_documented_then_exported() -> None:
    # Names in reverse alphabetical order, so the name tie-break cannot explain the order.
    specs = design(
        report(
            candidate("a_plain"),
            candidate("b_top", top_level=True),
            candidate("c_all", in_all=True),
            candidate("d_example", examples=[WITHOUT_EXPECTED]),
            candidate("e_expected", examples=[WITH_EXPECTED]),
        ),
        max_tools=10,
    )
    assert [s.name for s in specs] == ["e_expected", "d_example", "c_all", "b_top", "a_plain"]


def test_an_expected_value_outweighs_every_other_signal() -> None:
    specs = design(
        report(
            candidate(
                "a_everything_but",
                examples=[WITHOUT_EXPECTED],
                in_all=True,
                top_level=True,
                summary="Documented.",
            ),
            candidate("z_proven", examples=[WITH_EXPECTED]),
        ),
        max_tools=10,
    )
    assert [s.name for s in specs] == ["z_proven", "a_everything_but"]


def test_equal_candidates_are_ordered_by_name() -> None:
    specs = design(report(candidate("b"), candidate("c"), candidate("a")), max_tools=10)
    assert [s.name for s in specs] == ["a", "b", "c"]


@pytest.mark.parametrize("max_tools", [1, 2, 5])
def test_max_tools_is_respected_keeping_the_best(max_tools: int) -> None:
    candidates = [candidate(f"f{i}") for i in range(4)]
    candidates.append(candidate("zz_best", examples=[WITH_EXPECTED]))
    specs = design(report(*candidates), max_tools=max_tools)
    assert len(specs) == min(max_tools, 5)
    assert specs[0].name == "zz_best"


def test_names_are_unique_and_valid_even_when_they_collide() -> None:
    long_name = "x" * 90
    names = ["my.func", "my func", "my_func", "!!!", "???", "café", long_name, long_name + "y"]
    specs = design(report(*(candidate(n) for n in names)), max_tools=50)
    produced = [s.name for s in specs]
    assert len(produced) == len(names)
    assert len(set(produced)) == len(produced)
    for name in produced:
        assert NAME.match(name), name
    assert {s.target for s in specs} == {f"pkg.mod:{n}" for n in names}


def test_many_collisions_stay_within_the_length_limit() -> None:
    candidates = [candidate("y" * 70).model_copy(update={"target": f"m{i}:f"}) for i in range(12)]
    specs = design(report(*candidates), max_tools=50)
    produced = [s.name for s in specs]
    assert len(set(produced)) == 12
    assert all(NAME.match(n) for n in produced)


def test_spec_is_bound_to_the_candidate() -> None:
    parameters = [param("a", {"type": "integer"})]
    example = Example(arguments={"a": 1}, expected=2, has_expected=True)
    (spec,) = design(
        report(candidate("inc", parameters=parameters, examples=[example])), max_tools=1
    )
    assert spec.target == "pkg.mod:inc"
    assert spec.parameters == parameters
    assert spec.examples == [example]


def test_examples_are_capped_and_synthesised_when_absent() -> None:
    examples = [Example(arguments={"a": i}) for i in range(5)]
    parameters = [param("a", {"type": "integer"})]
    specs = design(
        report(
            candidate("many", parameters=parameters, examples=examples),
            candidate("none", parameters=parameters),
        ),
        max_tools=2,
    )
    by_name = {s.name: s for s in specs}
    assert by_name["many"].examples == examples[:3]
    (synthesised,) = by_name["none"].examples
    assert synthesised.origin == "synthesised"
    assert synthesised.arguments == {"a": 2}


DOC = """Add two integers.

Longer prose that explains the details.

Args:
    a: the first addend.
    b: the second addend.

>>> add(2, 3)
5
>>> add(-1, 1)
0
"""

INDENTED_DOC = """Add two integers.

Examples:
    >>> add(2, 3)
    5
"""


NUMPY_DOC = """Add two integers.

Examples
--------
>>> add(2, 3)
5
"""


@pytest.mark.parametrize("doc", [DOC, INDENTED_DOC, NUMPY_DOC])
def test_description_keeps_the_prose_and_drops_the_doctest_session(doc: str) -> None:
    (spec,) = design(report(candidate("add", doc=doc, summary="Add two integers.")), 1)
    assert spec.description.startswith("Add two integers.")
    assert ">>>" not in spec.description
    assert "add(2, 3)" not in spec.description
    assert "Examples" not in spec.description
    if doc is DOC:
        assert "a: the first addend." in spec.description
        assert "Longer prose" in spec.description


def test_description_of_a_doc_that_is_only_a_doctest_has_no_transcript() -> None:
    specs = design(
        report(
            candidate("add", doc=">>> add(2, 3)\n5"),
            candidate("sub", doc="Examples:\n    >>> sub(3, 2)\n    1"),
        ),
        max_tools=2,
    )
    assert [s.description for s in specs] == ["Call pkg.mod:add.", "Call pkg.mod:sub."]


def test_description_falls_back_to_summary_then_target_and_is_capped() -> None:
    specs = design(
        report(
            candidate("a", summary="Just a summary."),
            candidate("b"),
            candidate("c", doc="word " * 1000),
        ),
        max_tools=3,
    )
    by_name = {s.name: s for s in specs}
    assert by_name["a"].description == "Just a summary."
    assert by_name["b"].description == "Call pkg.mod:b."
    assert len(by_name["c"].description) <= MAX_DESCRIPTION


SCHEMAS: dict[str, dict[str, JSON]] = {
    "count": {"type": "integer"},
    "ratio": {"type": "number"},
    "label": {"type": "string"},
    "flag": {"type": "boolean"},
    "values": {"type": "array", "items": {"type": "number"}},
    "anything_list": {"type": "array"},
    "words": {"type": "array", "items": {"type": "string"}},
    "pair": {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    },
    "mapping": {"type": "object", "additionalProperties": {"type": "integer"}},
    "mode": {"enum": ["fast", "slow"]},
    "level": {"enum": [3, 4]},
    "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "either": {"anyOf": [{"type": "null"}, {"type": "string"}]},
    "nothing": {"type": "null"},
    "untyped": {},
    "n": {},
    "text": {},
    "data": {},
}


def test_synthesised_example_conforms_to_the_schema() -> None:
    parameters = [param(name, schema) for name, schema in SCHEMAS.items()]
    parameters.append(param("optional", {"type": "integer", "default": 1}, required=False))
    (spec,) = design(report(candidate("f", parameters=parameters)), 1)
    example = synthesise_example(parameters)
    assert example.origin == "synthesised"
    assert not example.has_expected
    assert set(example.arguments) == set(SCHEMAS)  # required only
    jsonschema.validate(example.arguments, spec.input_schema)
    assert example.arguments["mode"] == "fast"
    assert example.arguments["level"] == 3
    assert isinstance(example.arguments["maybe"], int)
    assert isinstance(example.arguments["either"], str)
    assert example.arguments["flag"] is True


@pytest.mark.parametrize(("name", "schema"), list(SCHEMAS.items()))
def test_each_synthesised_value_conforms(name: str, schema: dict[str, JSON]) -> None:
    parameters = [param(name, schema)]
    example = synthesise_example(parameters)
    jsonschema.validate(example.arguments[name], schema)


def test_unannotated_parameters_get_values_suggested_by_their_names() -> None:
    example = synthesise_example([param(n, {}) for n in ("n", "text", "data", "other")])
    assert example.arguments == {"n": 2, "text": "abc", "data": [1, 2, 3], "other": 1}


def notebook(stem: str) -> Candidate:
    return Candidate(
        target=f"examples/{stem}.ipynb",
        name=stem,
        signature=f"{stem}()",
        parameters=[],
        kind="notebook",
    )


def test_notebooks_get_a_share_of_the_tools_even_against_documented_functions() -> None:
    documented = [candidate(f"f{i:02d}", in_all=True, summary="Documented.") for i in range(20)]
    documented = [c.model_copy(update={"documented": i}) for i, c in enumerate(documented)]
    tutorials = [notebook(f"tutorial_{i}") for i in range(6)]

    specs = design(report(*documented, *tutorials), max_tools=12)

    kinds = [s.kind for s in specs]
    assert len(specs) == 12
    assert kinds.count("notebook") == 4  # a third of twelve
    assert [s.name for s in specs[:8]] == [f"f{i:02d}" for i in range(8)]  # the README's first


def test_a_tutorial_tool_gets_a_workflow_s_time_and_a_function_the_default() -> None:
    from metaserver.agents.design.specs import TUTORIAL_TIMEOUT

    specs = design(report(candidate("f00", in_all=True), notebook("tour")), max_tools=12)

    timeouts = {s.kind: s.timeout for s in specs}
    assert timeouts == {"function": None, "notebook": TUTORIAL_TIMEOUT}
    assert TUTORIAL_TIMEOUT >= 4 * 30  # the function default's four times, at least


def test_a_share_notebooks_leave_unused_goes_to_the_api() -> None:
    functions = [candidate(f"f{i:02d}", in_all=True) for i in range(20)]

    only_api = design(report(*functions), max_tools=12)
    one_tutorial = design(report(*functions, notebook("tour")), max_tools=12)
    few_functions = design(report(*functions[:2], *(notebook(f"t{i}") for i in range(9))), 12)

    assert [s.kind for s in only_api].count("function") == 12
    assert [s.kind for s in one_tutorial].count("function") == 11
    assert [s.kind for s in few_functions].count("notebook") == 9  # nothing else to take


def test_the_budget_grows_to_fit_the_documented_entry_points() -> None:
    from metaserver.agents.design.specs import tool_budget
    from metaserver.agents.repo_docs.usage import Usage

    names = [f"f{i}" for i in range(20)]
    code = report(*(candidate(n) for n in names), candidate("_hidden"))
    usage = Usage(documented=[*names, "_hidden", "elsewhere"], reads_files=["f0", "f1"])
    # 18 documented names a usable candidate answers (files and unknown names left out),
    # and half of max_tools for their constructors and what the README does not show
    assert tool_budget(code, usage, 12, 36) == 24
    assert tool_budget(code, usage, 12, 20) == 20  # the cap holds
    assert tool_budget(code, usage, 12, 0) == 12  # an explicit max_tools: no growth
    assert tool_budget(code, Usage(documented=["f2"]), 12, 36) == 12
    chosen = design(code, tool_budget(code, usage, 12, 36), usage)
    assert len(chosen) == 20  # every usable candidate
    # a name the README only shows reading a file comes after the ones a tool can run
    assert [s.name for s in chosen[-2:]] == ["f0", "f1"]


def test_a_function_of_only_star_args_is_synthesised_one_item() -> None:
    star = Parameter(
        name="args",
        kind="var_positional",
        json_schema={"type": "array", "items": {}, "default": []},
        required=False,
        default=[],
    )
    assert synthesise_example([star]).arguments == {"args": [1]}
    # with a required parameter, *args may well stay empty
    assert synthesise_example([param("x", {"type": "number"}), star]).arguments == {"x": 1.5}


def test_a_handle_parameter_is_usable_when_a_session_builds_it() -> None:
    from metaserver.agents.design.specs import usable
    from metaserver.contracts import SessionStep

    receiver = Parameter(
        name="handle", kind="positional_only", json_schema={}, codec="handle:pkg:Dot"
    )
    method = Candidate(
        target="pkg:Dot.grow",
        name="Dot.grow",
        signature="grow(radius)",
        parameters=[receiver, param("radius", {"type": "number"})],
        kind="method",
        owner="pkg:Dot",
    )
    assert not usable(method)  # no JSON builds a Dot, and nothing else does
    step = SessionStep(line="Dot(1.0, 2.0).grow(3.0)", target="pkg:Dot", arguments={})
    shown = Example(arguments={"radius": 3.0}, session=[step])
    assert usable(method.model_copy(update={"examples": [shown]}))
    # a function's object argument, built by a step ``into`` it
    function = Candidate(
        target="pkg:distance",
        name="distance",
        signature="distance(a)",
        parameters=[receiver.model_copy(update={"name": "a", "kind": "positional_or_keyword"})],
    )
    assert not usable(function)
    into = Example(arguments={}, session=[step.model_copy(update={"into": "a"})])
    assert usable(function.model_copy(update={"examples": [into]}))


def test_the_default_cap_never_cuts_what_the_docs_can_document() -> None:
    from metaserver.agents.design.specs import tool_budget
    from metaserver.agents.repo_docs.usage import MAX_DOCUMENTED, Usage
    from metaserver.settings import Settings

    names = [f"f{i:02d}" for i in range(MAX_DOCUMENTED)]
    code = report(*(candidate(n) for n in names))
    settings = Settings()
    budget = tool_budget(
        code, Usage(documented=names), settings.max_tools, settings.max_documented_tools
    )
    # every name the docs are read for, and half of max_tools for constructors and the rest
    assert budget == MAX_DOCUMENTED + settings.max_tools // 2


def test_a_cap_the_user_chose_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from metaserver.settings import Settings

    assert Settings().documented_cap(None) == Settings().max_documented_tools
    assert Settings().documented_cap(20) == 0  # --max-tools 20
    monkeypatch.setenv("METASERVER_MAX_TOOLS", "12")  # the default's value, but chosen
    assert Settings().documented_cap(None) == 0


def test_an_instance_the_class_holds_is_synthesised_before_guessed_arguments() -> None:
    held = {
        "type": "object",
        "properties": {"attribute": {"enum": ["UNIT", "WIDE"]}},
        "required": ["attribute"],
    }
    built = {"type": "object", "properties": {"radius": {"type": "number"}}}
    earth = Parameter(
        name="earth",
        kind="positional_or_keyword",
        json_schema={"anyOf": [built, {"type": "string"}, held]},
        required=True,
        codec="new:pkg:Ellipsoid",
    )
    plain = earth.model_copy(update={"name": "other", "json_schema": {"anyOf": [built]}})
    example = synthesise_example([earth, plain])
    assert example.arguments == {"earth": {"attribute": "UNIT"}, "other": {"radius": 1.5}}


def test_a_name_the_guides_import_documents_only_the_callable_listed_there() -> None:
    from metaserver.agents.repo_docs.usage import Usage, UsageCall

    shown = candidate("write", parameters=[param("filename", {"type": "string"})])
    shown = shown.model_copy(
        update={
            "target": "pkg.io.formats:write",
            "aliases": ["pkg.io:write"],
            "positional": ["filename"],
        }
    )
    other = candidate("write", parameters=[param("filename", {"type": "string"})])
    # the other write would win a tie: shallower, with an expected value of its own
    other = other.model_copy(
        update={"target": "pkg.aims:write", "examples": [WITH_EXPECTED], "positional": ["filename"]}
    )
    usage = Usage(
        documented=["write"],
        paths={"write": ["pkg.io.write"]},
        counts={"write": 1},
        calls={"write": [UsageCall(args=["out.xyz"], source="README.md")]},
    )
    chosen = design(report(other, shown), 1, usage)
    assert [s.target for s in chosen] == ["pkg.io:write"]
    assert {"filename": "out.xyz"} in [e.arguments for e in chosen[0].examples]
    both = {s.target: s for s in design(report(other, shown), 2, usage)}
    assert all(e.arguments != {"filename": "out.xyz"} for e in both["pkg.aims:write"].examples)
    # without the guide's import, the short name documents both (and the other one wins)
    loose = usage.model_copy(update={"paths": {}})
    assert [s.target for s in design(report(other, shown), 1, loose)] == ["pkg.aims:write"]


def test_a_guides_literal_beside_an_object_argument_is_the_value_of_its_parameter(
    tmp_path: Path,
) -> None:
    from metaserver.agents.repo_docs.usage import mine_usage

    (tmp_path / "README.md").write_text(
        ">>> from pkg.mod import write\n>>> h2 = build()\n>>> write('H2.xyz', h2)\n"
    )
    usage = mine_usage(tmp_path, {"write"})
    [call] = usage.calls["write"]
    assert (call.args, call.unknown) == (["H2.xyz", None], ["1"])
    parameters = [param("filename", {"type": "string"}), param("images", {"type": "integer"})]
    write = candidate("write", parameters=parameters).model_copy(
        update={"positional": ["filename", "images"]}
    )
    [spec] = design(report(write), 1, usage)
    assert spec.examples[0].arguments["filename"] == "H2.xyz"
    assert isinstance(spec.examples[0].arguments["images"], int)  # synthesised
    # without the guide's call, the file name is made up
    [made_up] = design(report(write), 1, None)
    assert made_up.examples[0].arguments["filename"] != "H2.xyz"


def test_the_budget_grows_with_what_can_be_proven_by_value() -> None:
    from metaserver.agents.design.specs import tool_budget
    from metaserver.agents.repo_docs.usage import Usage, UsageCall

    doctested = [candidate(f"d{i}", examples=[WITH_EXPECTED]) for i in range(14)]
    tested = [candidate(f"t{i}") for i in range(6)]
    helpers = [
        candidate(f"h{i}", examples=[WITH_EXPECTED]).model_copy(
            update={"target": f"pkg.utils:h{i}"}
        )
        for i in range(10)
    ]
    code = report(*doctested, *tested, *helpers)
    asserted = {f"t{i}": [UsageCall(expected=1, has_expected=True)] for i in range(6)}
    usage = Usage(calls=asserted)
    # 14 doctested and 6 proven by their tests' assertions; internal helpers are not counted
    assert tool_budget(code, usage, 12, 66) == 20
    assert tool_budget(code, usage, 12, 16) == 16
    assert tool_budget(report(*doctested[:5]), usage, 12, 66) == 12


def test_a_readme_without_code_grows_the_budget_by_what_its_tests_call() -> None:
    from metaserver.agents.design.specs import tool_budget
    from metaserver.agents.repo_docs.usage import Usage

    names = [f"f{i}" for i in range(30)]
    code = report(*(candidate(n).model_copy(update={"top_level": True}) for n in names))
    tested = Usage(tested={n: 1 for n in names[:16]})
    assert tool_budget(code, tested, 12, 66) == 16 + 6
    assert tool_budget(code, Usage(), 12, 66) == 12  # the namespace alone grows nothing


def test_a_file_named_by_a_path_not_in_the_repository_is_the_shipped_file_of_that_name() -> None:
    from metaserver.agents.repo_docs.usage import Usage

    reader = param("fp", {"type": "string"}).model_copy(update={"codec": "path"})
    shipped = ["src/pkg/data/test_files/ct.dcm", "src/pkg/data/a/mr.dcm", "src/pkg/data/b/mr.dcm"]
    examples = [
        Example(arguments={"fp": "ct.dcm"}),  # the docs' own folder left out
        Example(arguments={"fp": "mr.dcm"}),  # two shipped files of that name: neither
        Example(arguments={"fp": "http://host/ct.dcm"}),
    ]
    (spec,) = design(
        report(candidate("read", examples=examples, parameters=[reader])),
        5,
        Usage(documented=["read"], data_files=shipped),
    )
    assert [e.arguments["fp"] for e in spec.examples] == [
        "src/pkg/data/test_files/ct.dcm",
        "mr.dcm",
        "http://host/ct.dcm",
    ]


def test_a_method_call_of_that_name_is_no_example_of_a_function() -> None:
    from metaserver.agents.repo_docs.usage import Usage, UsageCall

    omega = param("omega", {"type": "array"})
    usage = Usage(
        documented=["response"],
        calls={
            "response": [
                UsageCall(kwargs={"omega": [0.1]}, expected=[0.9], has_expected=True, method=True),
                UsageCall(kwargs={"omega": [0.2]}),
            ]
        },
    )
    (spec,) = design(report(candidate("response", parameters=[omega])), 5, usage)
    assert [e.arguments for e in spec.examples] == [{"omega": [0.2]}]


def test_an_argument_built_by_a_loader_is_a_session_step_into_its_parameter() -> None:
    from metaserver.agents.repo_docs.usage import BuiltArgument, Usage, UsageCall

    def positional(c: Candidate, *names: str) -> Candidate:
        return c.model_copy(update={"positional": list(names)})

    loader = positional(candidate("load", parameters=[param("name", {"type": "string"})]), "name")
    data, scale = param("data", {}), param("scale", {"type": "integer"}, required=False)
    spread = positional(candidate("spread", parameters=[data, scale]), "data", "scale")
    spread_all = positional(candidate("spread_all", parameters=[data]), "*data")
    built = BuiltArgument(name="load", args=["pairs"], line="load('pairs')")
    by_position = UsageCall(args=[None, 2], expected=16, has_expected=True, built={"0": built})
    by_keyword = UsageCall(
        kwargs={"data": None}, expected=8, has_expected=True, built={"data": built}
    )
    unknown_maker = built.model_copy(update={"name": "nowhere"})
    usage = Usage(
        calls={
            "spread": [by_position, by_keyword],
            "spread_all": [by_position.model_copy(update={"built": {"0": built}})],
        }
    )
    usage.calls["spread"].append(
        UsageCall(args=[None, 3], expected=1, has_expected=True, built={"0": unknown_maker})
    )
    specs = {s.target: s for s in design(report(loader, spread, spread_all), 12, usage)}
    proven = [e for e in specs["pkg.mod:spread"].examples if e.has_expected]
    assert [(e.arguments, e.expected) for e in proven] == [({"scale": 2}, 16), ({}, 8)]
    for example in proven:
        (step,) = example.session
        assert (step.target, step.arguments, step.into) == (
            "pkg.mod:load",
            {"name": "pairs"},
            "data",
        )
    # no maker of that name; an item of ``*data``: neither is an example (no crash either)
    assert not any(e.has_expected for e in specs["pkg.mod:spread_all"].examples)


def test_the_docs_plain_call_stays_when_every_kept_example_shows_a_value() -> None:
    from metaserver.agents.design.specs import MAX_EXAMPLES

    reader = param("fp", {"type": "string"})
    values = [
        Example(arguments={"fp": f"t{i}.dcm"}, expected=i, has_expected=True, origin="usage")
        for i in range(MAX_EXAMPLES + 1)
    ]
    plain = Example(arguments={"fp": "CT_small.dcm"})
    (spec,) = design(report(candidate("read", parameters=[reader], examples=[*values, plain])), 4)
    assert [e.arguments["fp"] for e in spec.examples] == [
        *(f"t{i}.dcm" for i in range(MAX_EXAMPLES - 1)),
        "CT_small.dcm",
    ]
    # with room enough, or a plain call kept already, nothing changes
    (spec,) = design(report(candidate("read", parameters=[reader], examples=[values[0], plain])), 4)
    assert [e.arguments["fp"] for e in spec.examples] == ["t0.dcm", "CT_small.dcm"]


def test_a_method_called_on_an_instance_its_class_holds_keeps_the_value_shown(
    tmp_path: Path,
) -> None:
    from metaserver.agents.repo_docs.usage import mine_usage

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_geo.py").write_text(
        "from geo import Earth\n\n"
        "def test_inverse():\n"
        "    inv = Earth.WGS84.inverse(40.6, -73.8)\n"
        "    assert inv['azi1'] == 53.47022\n"
        "    other = Earth.MOON.inverse(1.0, 2.0)\n"
        "    assert other['azi1'] == 12.5\n"
        "    earth = Earth(6.4e6)\n"
        "    assert earth.inverse(3.0, 4.0)['azi1'] == 7.5\n"
    )
    usage = mine_usage(tmp_path, {"inverse"})
    held = {"type": "object", "properties": {"attribute": {"enum": ["WGS84"]}}}
    receiver = Parameter(
        name="handle",
        kind="positional_only",
        json_schema={"anyOf": [{"type": "object", "properties": {"a": {}}}, held]},
        codec="new:geo:Earth",
    )
    method = Candidate(
        target="geo:Earth.inverse",
        name="Earth.inverse",
        signature="inverse(lat, lon)",
        parameters=[receiver, param("lat", {"type": "number"}), param("lon", {"type": "number"})],
        kind="method",
        owner="geo:Earth",
        positional=["handle", "lat", "lon"],
    )
    (spec,) = design(report(method), 5, usage)
    shown = [e for e in spec.examples if e.has_expected]
    # WGS84 is an instance Earth holds: the receiver the test called on, with its value; the
    # MOON is no name the receiver's schema offers, and ``earth`` a receiver the test built
    assert [(e.arguments, e.expected, [r.keys for r in e.reads]) for e in shown] == [
        ({"handle": {"attribute": "WGS84"}, "lat": 40.6, "lon": -73.8}, 53.47022, [["azi1"]])
    ]
    assert [(e.arguments["lat"], e.has_expected) for e in spec.examples] == [
        (40.6, True),
        (1.0, False),
        (3.0, False),
    ]
