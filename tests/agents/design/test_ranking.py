"""Selection of the library's main API: documented entry points first, duplicates collapsed,
caps for variety, the shallowest public path (synthetic CodeReports)."""

from __future__ import annotations

from metaserver.agents.design.ranking import rank_score
from metaserver.agents.design.specs import design
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import JSON, Candidate, CodeReport, Example, Parameter, SessionStep

PROVEN = Example(arguments={}, expected=1, has_expected=True)


def param(name: str, codec: str | None = None) -> Parameter:
    schema: dict[str, JSON] = {"type": "object"} if codec else {"type": "integer"}
    return Parameter(name=name, kind="positional_or_keyword", json_schema=schema, codec=codec)


def function(name: str, module: str = "pkg.mod", **kw: object) -> Candidate:
    return Candidate(
        target=f"{module}:{name}",
        name=name,
        signature=f"{name}()",
        parameters=kw.pop("parameters", []),  # type: ignore[arg-type]
        summary="Documented.",
        **kw,  # type: ignore[arg-type]
    )


def klass(name: str, module: str = "pkg.mod") -> Candidate:
    return function(name, module, kind="constructor", owner=f"{module}:{name}")


def method(owner: str, name: str, module: str = "pkg.mod", **kw: object) -> Candidate:
    receiver = param("self", f"new:{module}:{owner}")
    return function(
        f"{owner}.{name}",
        module,
        kind="method",
        owner=f"{module}:{owner}",
        parameters=[receiver, *kw.pop("parameters", [])],  # type: ignore[list-item]
        **kw,
    )


def names(candidates: list[Candidate], max_tools: int, usage: Usage | None = None) -> list[str]:
    specs = design(CodeReport(packages=["pkg"], candidates=candidates), max_tools, usage)
    return [s.name for s in specs]


def test_a_documented_entry_point_outweighs_an_expected_value() -> None:
    plain = function("integrate", documented=40)  # even the 41st name a reader meets
    proven = function("a_helper", examples=[PROVEN], in_all=True, top_level=True, usage=50)
    assert rank_score(plain) > rank_score(proven)
    # the earlier a reader meets a name, the higher it ranks
    assert rank_score(function("f", documented=0)) > rank_score(function("f", documented=3))
    assert names([proven, plain], max_tools=1) == ["integrate"]


def test_usage_documented_order_drives_selection() -> None:
    candidates = [
        function("aaa", examples=[PROVEN]),
        function("solve"),
        function("simplify"),
        function("zzz_internal", examples=[PROVEN]),
    ]
    usage = Usage(documented=["simplify", "solve"])
    assert names(candidates, max_tools=3, usage=usage) == ["simplify", "solve", "aaa"]


def test_an_inherited_method_is_one_tool_of_the_class_that_defines_it() -> None:
    base = "pkg.mod:Basic"
    candidates = [klass("Basic")]
    for cls in ("Add", "Mul", "Pow", "Basic", "Symbol"):
        candidates += [klass(cls), method(cls, "is_polar", defined_in=base, examples=[PROVEN])]
    candidates.append(function("solve", examples=[PROVEN]))
    chosen = names(candidates, max_tools=6)
    assert [n for n in chosen if n.endswith("is_polar")] == ["basic_is_polar"]
    assert "solve" in chosen


def test_an_inherited_method_is_kept_on_the_class_the_readme_builds() -> None:
    base = "pkg.mod:Base"
    candidates = [klass("Base"), klass("Hamming"), klass("Jaro")]
    for cls in ("Base", "Jaro", "Hamming"):
        candidates.append(method(cls, "distance", defined_in=base))
    usage = Usage(documented=["distance", "Hamming"])
    chosen = names(candidates, max_tools=4, usage=usage)
    assert [n for n in chosen if n.endswith("distance")] == ["hamming_distance"]


def test_an_inherited_method_is_kept_on_the_class_the_readmes_factory_returns() -> None:
    # ``am = make_model(y); am.fit()``: the factory's annotation says it builds a Harx; a
    # sibling subclass (first by name) is not the class the README fits.
    base = "pkg.mod:Model"
    candidates = [klass("Arx"), klass("Harx")]
    for cls in ("Arx", "Harx"):
        candidates.append(method(cls, "fit", defined_in=base))
    candidates.append(function("make_model", returns="pkg.mod:Harx"))
    usage = Usage(documented=["make_model", "fit"])
    chosen = names(candidates, max_tools=4, usage=usage)
    assert [n for n in chosen if n.endswith("fit")] == ["harx_fit"]


def test_an_inherited_method_is_kept_on_the_class_whose_session_proves_it() -> None:
    base = "pkg.mod:Shape"
    session = [SessionStep(line="Line(2).equals(Line(2))", target="pkg.mod:Line")]
    proof = PROVEN.model_copy(update={"session": session})
    candidates = [klass("Shape"), klass("Line"), klass("Dot")]
    candidates.append(method("Shape", "equals", defined_in=base))
    candidates.append(method("Line", "equals", defined_in=base, examples=[proof]))
    candidates.append(method("Dot", "equals", defined_in=base, examples=[PROVEN]))
    usage = Usage(documented=["Dot", "Shape"])
    chosen = names(candidates, max_tools=4, usage=usage)
    assert [n for n in chosen if n.endswith("equals")] == ["line_equals"]


def test_the_same_docstring_across_generated_classes_is_one_tool() -> None:
    doc = "Parse one line of the file format."
    candidates: list[Candidate] = []
    for cls in ("AParser", "BParser", "CParser", "DParser"):
        candidates += [klass(cls), method(cls, "parse_line", doc=doc, examples=[PROVEN])]
    candidates += [function("read"), function("write")]
    chosen = names(candidates, max_tools=12)
    assert len([n for n in chosen if n.endswith("parse_line")]) == 1
    assert {"read", "write"} <= set(chosen)


def test_caps_buy_variety_and_slots_they_leave_are_still_filled() -> None:
    engine = [method("Engine", f"m{i}", examples=[PROVEN]) for i in range(8)]
    others = [function(f"f{i}", module=f"pkg.other{i}") for i in range(3)]
    candidates = [klass("Engine"), *engine, *others]
    chosen = names(candidates, max_tools=6)
    # constructor + 2 methods (the class cap for 6 tools) + the 3 functions of other modules
    assert chosen == ["engine_new", "engine_m0", "engine_m1", "f0", "f1", "f2"]
    # with more room than variety, the capped class fills the remaining slots
    assert len(names(candidates, max_tools=10)) == 10


def test_documented_methods_are_not_capped_and_a_documented_class_is_a_tool() -> None:
    candidates = [klass("Engine")] + [method("Engine", f"m{i}") for i in range(6)]
    candidates.append(function("helper", examples=[PROVEN]))
    usage = Usage(documented=["Engine", "m0", "m1", "m2", "m3", "m4"])
    chosen = names(candidates, max_tools=6, usage=usage)
    assert chosen == ["engine_new", "engine_m0", "engine_m1", "engine_m2", "engine_m3", "engine_m4"]


def test_the_top_level_public_path_is_preferred() -> None:
    deep = function(
        "integrate",
        module="pkg.integrals.core",
        aliases=["pkg.integrals:integrate", "pkg:integrate"],
    )
    specs = design(CodeReport(packages=["pkg"], candidates=[deep]), max_tools=3)
    assert [(s.name, s.target) for s in specs] == [("integrate", "pkg:integrate")]
    # the alias's name is what the README calls
    renamed = function("_impl", module="pkg.core", aliases=["pkg:integrate"])
    usage = Usage(documented=["integrate"])
    assert names([function("other", examples=[PROVEN]), renamed], 1, usage) == ["integrate"]


def test_among_equals_the_shallower_module_comes_first() -> None:
    candidates = [function("a", module="pkg.sub.deep"), function("b", module="pkg")]
    assert names(candidates, max_tools=2) == ["b", "a"]


def test_a_documented_method_name_is_one_tool_on_the_class_the_readme_builds_first() -> None:
    candidates: list[Candidate] = []
    for cls in ("AKeyList", "List", "Set"):  # separate implementations, separate docstrings
        candidates += [klass(cls), method(cls, "count", doc=f"Count in a {cls}.")]
    candidates += [function("helper"), function("other", module="pkg.two")]
    usage = Usage(documented=["List", "count", "Set"])
    chosen = names(candidates, max_tools=4, usage=usage)
    # the family's one tool goes to the class built first; the budget left buys variety
    assert chosen == ["list_new", "list_count", "set_new", "other"]


def test_a_method_whose_session_builds_its_receiver_needs_not_its_constructor() -> None:
    from metaserver.contracts import SessionStep

    steps = [
        SessionStep(line="sys = make(4)", target="pkg.mod:make", arguments={"n": 4}),
        SessionStep(line="resp = respond(sys)", target="pkg.mod:respond", takes={"s": 0}),
    ]
    plot = method("Response", "plot", examples=[Example(arguments={}, session=steps)])
    candidates = [
        klass("Response"),
        plot,
        function("make", examples=[PROVEN]),
        function("respond", examples=[PROVEN]),
        function("spare", examples=[PROVEN]),
    ]
    usage = Usage(documented=["plot"])
    # the session's tools come with it; Response's own constructor is not needed
    assert names(candidates, max_tools=3, usage=usage) == ["make", "respond", "response_plot"]


def test_same_named_loaders_of_sibling_modules_are_one_tool() -> None:
    loaders = [
        function("load_pandas", f"stats.datasets.{name}.data", doc=f"Load the {name} data.")
        for name in ("anes96", "cancer", "ccard", "china")
    ]
    pair = [function("parse", "pkg.dates"), function("parse", "pkg.isoparser")]
    fit = function("fit", "stats.api", examples=[PROVEN])
    specs = design(CodeReport(packages=["stats"], candidates=[*loaders, *pair, fit]), 6)
    targets = [s.target for s in specs]
    assert len([t for t in targets if t.endswith(":load_pandas")]) == 1
    # two modules' functions of one name may well differ: a family is three or more
    assert {"pkg.dates:parse", "pkg.isoparser:parse"} <= set(targets)
    assert "stats.api:fit" in targets


def test_an_internal_helper_ranks_below_public_callables_unless_documented() -> None:
    helper = function("sanitize_csv", "text.utils", examples=[PROVEN], in_all=True)
    shim = function("safe_regex", "text.compat", examples=[PROVEN])
    public = function("word_tokenize", "text.tokenize")
    assert rank_score(helper) < rank_score(public)
    assert rank_score(shim) < rank_score(public)
    specs = design(CodeReport(packages=["text"], candidates=[helper, shim, public]), 1)
    assert [s.target for s in specs] == ["text.tokenize:word_tokenize"]
    documented = helper.model_copy(update={"documented": 0})
    assert rank_score(documented) > rank_score(public)


def test_an_internal_helper_takes_no_place_the_caps_free_for_variety() -> None:
    public = [function(f"f{i}", "text.core") for i in range(4)]
    helper = function("sanitize", "text.utils", examples=[PROVEN])
    other = function("g", "text.extra")
    # per-module cap 3 of 6: a public callable of the capped module still beats the helper
    specs = design(CodeReport(packages=["text"], candidates=[*public, helper, other]), 6)
    assert "text.utils:sanitize" in [s.target for s in specs]  # it fills the last place
    specs = design(CodeReport(packages=["text"], candidates=[*public, helper, other]), 5)
    assert "text.utils:sanitize" not in [s.target for s in specs]


def test_one_line_of_text_read_loosely_is_no_proof_to_rank_by() -> None:
    # a page printed an object's repr: tried, but the answer's JSON seldom prints it alike
    printed = Example(
        arguments={}, expected="{(np.int64(1),): 0.765}", has_expected=True, wrapper="ellipsis"
    )
    table = printed.model_copy(update={"expected": "Squares:\n0->0\n1->1"})  # printed text
    cut = printed.model_copy(update={"expected": "['coif1', 'coif2', ..."})  # an ELLIPSIS
    assert not printed.promises_value
    assert table.promises_value and cut.promises_value and PROVEN.promises_value
    loose = rank_score(function("fixation", examples=[printed]))
    assert loose < rank_score(function("replicator", examples=[PROVEN]))
    assert loose == rank_score(function("plain", examples=[Example(arguments={})]))
