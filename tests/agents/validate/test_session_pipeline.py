"""A conversion whose methods are proven by their own doctest sessions, through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from receiver_fixtures import make_session_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_methods_are_proven_by_the_session_that_built_their_receiver(
    tmp_path: Path,
) -> None:
    repo = make_session_repo(tmp_path / "sessionpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=14)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # g = Grid("A1"); g.code() -> 4328: checked on the receiver that example built.
    code = tools["Grid.code"]
    assert code.status == "passed", code.error
    assert code.evidence is not None
    assert code.evidence.check == "expected-value"
    assert code.evidence.result == 4328
    assert [s.line for s in code.evidence.session] == ['g = Grid("A1")']

    # acc = Tally(); acc.add(1); acc.add(5); acc.total() -> 6, with its setup calls, and
    # never the value 14 documented for the module-level total.
    tally = tools["Tally.total"]
    assert tally.status == "passed", tally.error
    assert tally.evidence is not None
    assert tally.evidence.check == "expected-value"
    assert tally.evidence.result == 6
    assert [s.line for s in tally.evidence.session] == ["acc = Tally()", "acc.add(1)", "acc.add(5)"]
    assert tools["total"].evidence is not None
    assert tools["total"].evidence.result == 14

    # Ellipsoid.EARTH.polar() -> 75.0: the class's own instance is the receiver.
    polar = tools["Ellipsoid.polar"]
    assert polar.status == "passed", polar.error
    assert polar.evidence is not None
    assert polar.evidence.check == "expected-value"
    assert polar.evidence.result == 75.0
    assert polar.evidence.arguments[polar.evidence.receiver or ""] == {"attribute": "EARTH"}

    # A value shown for a receiver the docstring never built is not ours to check.
    area = tools["Grid.area"]
    assert area.status == "passed", area.error
    assert area.evidence is not None and area.evidence.check == "no-error"

    # The repository's own session, replayed as written, disagrees: its bug, with the replay.
    gauge = tools["Gauge.read"]
    assert gauge.status == "dropped"
    assert gauge.failure_type == "repo_internal_bug"
    assert gauge.evidence is not None
    assert gauge.evidence.replay == ["gauge = Gauge(3)", "gauge.read()"]
    assert gauge.evidence.result == 300

    for tool in report.tools:  # no verdict against the repository without its replay
        if tool.failure_type == "repo_internal_bug":
            assert tool.evidence is not None and tool.evidence.replay, tool.name
