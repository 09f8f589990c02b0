"""A conversion whose methods and functions are proven by the README lines that built their
receiver and arguments, through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from receiver_fixtures import make_readme_session_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_readme_lines_build_the_receiver_of_the_method_they_call(tmp_path: Path) -> None:
    repo = make_readme_session_repo(tmp_path / "shapepack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # >>> Dot(3.0, 4.0).norm() -> 5.0: checked on the receiver the README's line built.
    norm = tools["Dot.norm"]
    assert norm.status == "passed", norm.error
    assert norm.evidence is not None
    assert norm.evidence.check == "expected-value"
    assert norm.evidence.result == 5.0
    assert [s.line for s in norm.evidence.session] == ["Dot(3.0, 4.0).norm()"]

    # disc = Dot(1.0, 2.0).grow(3.0): a float radius (no annotation says so) on that Dot.
    grow = tools["Dot.grow"]
    assert grow.status == "passed", grow.error
    assert grow.evidence is not None
    assert [s.line for s in grow.evidence.session] == ["disc = Dot(1.0, 2.0).grow(3.0)"]
    assert grow.evidence.arguments["radius"] == 3.0

    # distance(far, Dot(0.0, 0.0)) -> 10.0: both dots built by their own tool first (a Dot
    # parameter takes only a handle, so without the session it could not be a tool).
    distance = tools["distance"]
    assert distance.status == "passed", distance.error
    assert distance.evidence is not None
    assert distance.evidence.check == "expected-value"
    assert distance.evidence.result == 10.0
    steps = [(s.line, s.into, s.tool) for s in distance.evidence.session]
    assert steps == [
        ("far = Dot(6.0, 8.0)", "a", "dot_new"),
        ("distance(far, Dot(0.0, 0.0))", "b", "dot_new"),
    ]

    # farthest(*dots): each built dot is an item of the list, in the line's order.
    farthest = tools["farthest"]
    assert farthest.status == "passed", farthest.error
    assert farthest.evidence is not None and farthest.evidence.result == 10.0
    assert [(s.into, s.item) for s in farthest.evidence.session] == [("dots", 0), ("dots", 1)]

    # d = diagonal(2.5); d.total() -> 5.0: a receiver the package's own function built.
    total = tools["Dot.total"]
    assert total.status == "passed", total.error
    assert total.evidence is not None and total.evidence.result == 5.0
    assert [(s.line, s.tool) for s in total.evidence.session] == [("d = diagonal(2.5)", "diagonal")]
    assert sorted(report.coverage.covered) == [
        "Dot",
        "diagonal",
        "distance",
        "farthest",
        "grow",
        "norm",
        "total",
    ]
