"""pinned_paths: the candidates a guide's resolved call is, whichever path they are under."""

from __future__ import annotations

from metaserver.agents.repo_docs.coverage import readme_coverage
from metaserver.agents.repo_docs.guide_paths import pinned_paths
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import Candidate, ToolSpec


def found(target: str, kind: str = "function", **extra: object) -> Candidate:
    name = target.partition(":")[2]
    return Candidate.model_validate(
        {"target": target, "name": name, "signature": "f()", "parameters": [], "kind": kind} | extra
    )


def test_an_inherited_method_is_one_callable_under_every_class_that_lists_it() -> None:
    # ``v = geo.Sub(1); v.score(2)``: Sub.score is Base.score, listed under both classes
    base = found("geo:Base", "constructor")
    sub = found("geo:Sub", "constructor")
    defined = {"defined_in": "geo.core:Base"}
    on_base = found("geo:Base.score", "method", owner="geo:Base", **defined)
    on_sub = found("geo:Sub.score", "method", owner="geo:Sub", **defined)
    # another class's own score is another callable
    other = found("geo:Other.score", "method", owner="geo:Other", defined_in="geo:Other")
    candidates = [base, sub, on_base, on_sub, other]
    usage = Usage(documented=["score"], paths={"score": ["geo.Sub.score"]})

    assert pinned_paths(usage, candidates) == {"score": {"geo.Base.score", "geo.Sub.score"}}
    # the tool design kept is Base's (the class that defines it): the documented entry point
    passed = [ToolSpec(name="base_score", description="", target=on_base.target, parameters=[])]
    assert readme_coverage(usage, passed, candidates).covered == ["score"]
    mistaken = [ToolSpec(name="other_score", description="", target=other.target, parameters=[])]
    assert readme_coverage(usage, mistaken, candidates).covered == []
