"""A conversion whose methods the README calls on the result of another call (a chain),
proven through MCP on the handle that call returned."""

from __future__ import annotations

from pathlib import Path

import pytest
from receiver_fixtures import make_chain_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_method_called_on_a_chain_is_proven_on_the_chain_result(tmp_path: Path) -> None:
    repo = make_chain_repo(tmp_path / "clockpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # noon().later(90).label() -> '13:30': the function builds the clock, later() hands on
    # the clock it returns, and label() is called on that one.
    label = tools["Clock.label"]
    assert label.status == "passed", label.error
    assert label.evidence is not None
    assert label.evidence.check == "expected-value"
    assert label.evidence.result == "13:30"
    steps = [(s.tool, s.chained) for s in label.evidence.session]
    assert steps == [("noon", False), ("clock_later", True)]
    assert label.evidence.session[1].arguments == {"minutes": 90}

    # evening = Clock(600).later(480); evening.hours() -> 18.0: the name holds the chain.
    hours = tools["Clock.hours"]
    assert hours.status == "passed", hours.error
    assert hours.evidence is not None
    assert hours.evidence.check == "expected-value"
    assert hours.evidence.result == 18.0
    assert [(s.line, s.tool, s.chained) for s in hours.evidence.session] == [
        ("evening = Clock(600).later(480)", "clock_new", False),
        ("evening = Clock(600).later(480)", "clock_later", True),
    ]
    assert {"label", "hours", "later", "noon"} <= set(report.coverage.covered)

    # The generated tests replay the same chains against the published server.
    assert report.output_dir is not None
    generated = Path(report.output_dir) / "tests" / "validation_calls.json"
    assert '"chained": true' in generated.read_text()
