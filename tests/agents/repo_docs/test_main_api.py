"""The main API when the README shows none: fallback entry points, the public namespace,
internal modules, and coverage against them."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.coverage import readme_coverage
from metaserver.agents.repo_docs.main_api import (
    fallback_entry_points,
    internal,
    public_namespace,
    with_fallback,
)
from metaserver.agents.repo_docs.usage import Usage, mine_usage
from metaserver.contracts import Candidate, ToolSpec


def cand(target: str, kind: str = "function", **kw: object) -> Candidate:
    name = target.partition(":")[2]
    return Candidate(
        target=target,
        name=name,
        signature=f"{name}()",
        parameters=[],
        kind=kind,  # type: ignore[arg-type]
        owner=target if kind == "constructor" else None,
        **kw,  # type: ignore[arg-type]
    )


def spec(target: str, kind: str = "function") -> ToolSpec:
    return ToolSpec(
        name=target.replace(":", "_").replace(".", "_"),
        description="",
        target=target,
        parameters=[],
        kind=kind,  # type: ignore[arg-type]
    )


def test_internal_modules_and_command_line_mains() -> None:
    assert internal(cand("text.utils:sanitize_csv"))
    assert internal(cand("text.internals.compat:safe_regex"))
    assert internal(cand("text._compat:u"))
    assert internal(cand("text.cli:main"))
    assert internal(cand("text.core:main"))
    assert not internal(cand("text.tokenize.punkt:word_tokenize"))
    # re-exported where users call it, a helper's home does not make it internal
    assert not internal(cand("text.utils:edit_distance", aliases=["text:edit_distance"]))


def test_the_namespace_is_the_top_level_most_tested_first() -> None:
    candidates = [
        cand("lib:FreqDist", kind="constructor"),
        cand("lib.tok:word_tokenize", aliases=["lib:word_tokenize"]),
        cand("lib:ngrams"),
        cand("lib.utils:sanitize", aliases=["lib.utils:clean"]),
        cand("lib.deep:helper", in_all=True),
        cand("lib:_private"),
    ]
    usage = Usage(tested={"ngrams": 9, "word_tokenize": 4, "sanitize": 30}, counts={"ngrams": 9})
    assert public_namespace(usage, candidates) == ["ngrams", "word_tokenize", "FreqDist"]
    # nothing at the top level: the modules' __all__; then what the tests call
    deep = candidates[3:]
    assert public_namespace(usage, deep) == ["helper"]
    assert public_namespace(usage, [cand("lib.a:f"), cand("lib.b:g")]) == []
    tested = Usage(tested={"g": 2})
    assert public_namespace(tested, [cand("lib.a:f"), cand("lib.b:g")]) == ["g"]


def test_fallback_entry_points_only_when_the_readme_shows_none() -> None:
    candidates = [
        cand("lib:a"),
        cand("lib:b"),
        cand("lib.sub:c"),
        cand("lib.sub:d"),
        cand("lib.utils:e"),
    ]
    usage = Usage(tested={"c": 5, "b": 1, "e": 50}, counts={"c": 5, "b": 1, "e": 50, "d": 2})
    usage.exampled = ["d"]
    # examples, then the tested namespace, then other tested public names; never what
    # nothing calls (a), nor an internal helper however tested (e)
    assert fallback_entry_points(usage, candidates) == ["d", "b", "c"]
    fallen = with_fallback(usage, candidates)
    assert fallen is not None and fallen.documented == ["d", "b", "c"]
    assert with_fallback(Usage(counts={"a": 3}), candidates).documented == []  # type: ignore[union-attr]
    shown = usage.model_copy(update={"documented": ["a"]})
    assert with_fallback(shown, candidates) is shown


def test_coverage_of_a_readme_without_code_is_measured_on_the_namespace() -> None:
    candidates = [
        cand("lib:a"),
        cand("lib:b"),
        cand("lib.utils:c"),
        cand("lib:Thing", "constructor"),
    ]
    usage = Usage(tested={"b": 3})
    coverage = readme_coverage(usage, [spec("lib:b"), spec("lib.utils:c")], candidates)
    assert coverage.basis == "namespace"
    assert coverage.documented == ["b", "Thing", "a"]
    assert coverage.covered == ["b"]
    assert coverage.ratio == round(1 / 3, 3)
    readme = readme_coverage(Usage(documented=["c"]), [spec("lib.utils:c")], candidates)
    assert (readme.basis, readme.ratio) == ("readme", 1.0)


def test_a_method_is_covered_only_on_the_class_it_is_called_on(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "```python\nfrom lib import Model\nm = Model(2)\nm.fit([1, 2])\n```\n"
    )
    usage = mine_usage(tmp_path, {"Model", "fit"}, methods={"fit"}, packages=["lib"])
    assert usage.documented == ["Model", "fit"]
    candidates = [
        cand("lib.model:Model", "constructor", aliases=["lib:Model"]),
        cand("lib.other:Other", "constructor"),
        Candidate(
            target="lib.model:Model.fit",
            name="Model.fit",
            signature="fit(self, x)",
            parameters=[],
            kind="method",
            owner="lib.model:Model",
        ),
        Candidate(
            target="lib.other:Other.fit",
            name="Other.fit",
            signature="fit(self, x)",
            parameters=[],
            kind="method",
            owner="lib.other:Other",
        ),
    ]
    other = readme_coverage(
        usage,
        [spec("lib.model:Model", "constructor"), spec("lib.other:Other.fit", "method")],
        candidates,
    )
    assert other.covered == ["Model"]
    own = readme_coverage(usage, [spec("lib.model:Model.fit", "method")], candidates)
    assert own.covered == ["fit"]


def test_a_script_is_never_internal() -> None:
    assert not internal(cand("scripts.main:main", kind="script"))


def test_a_method_on_what_a_function_returned_is_that_classs(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "```python\nfrom lib import make\nt = make([1])\nt.total()\n```\n"
    )
    usage = mine_usage(tmp_path, {"make", "total"}, methods={"total"}, packages=["lib"])
    assert usage.paths["total"] == ["lib.make.total"]

    def method(target: str, owner: str) -> Candidate:
        return Candidate(
            target=target,
            name=target.partition(":")[2],
            signature="total(self)",
            parameters=[],
            kind="method",
            owner=owner,
        )

    candidates = [
        cand("lib.core:make", aliases=["lib:make"], returns="lib.core:Tally"),
        cand("lib.core:Tally", "constructor"),
        cand("lib.core:Ledger", "constructor"),
        method("lib.core:Tally.total", "lib.core:Tally"),
        method("lib.core:Ledger.total", "lib.core:Ledger"),
    ]
    other = readme_coverage(
        usage, [spec("lib:make"), spec("lib.core:Ledger.total", "method")], candidates
    )
    assert other.covered == ["make"]  # Ledger's total is not the one the README calls
    own = readme_coverage(usage, [spec("lib.core:Tally.total", "method")], candidates)
    assert own.covered == ["total"]
