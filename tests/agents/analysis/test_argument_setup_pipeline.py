"""An argument set up by its own methods through MCP (``net = Net()``, ``net.link(...)``,
then ``route(net, "A", "D")``): the setup calls are replayed on the built handle, so the
documented value is checked exactly, and the generated tests replay them too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from argument_fixtures import make_net_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_setup_calls_of_an_argument_are_replayed(tmp_path: Path) -> None:
    repo = make_net_repo(tmp_path / "netpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    route = tools["route"]
    assert route.status == "passed", route.error
    assert route.evidence is not None
    # Without the links the net is empty and route raises: the value is the README's.
    assert route.evidence.check == "expected-value"
    assert route.evidence.result == ["A", "B", "D"]
    link = tools["Net.link"].name
    steps = [(s.line, s.tool, s.into, s.on) for s in route.evidence.session]
    assert steps == [
        ("net = Net()", tools["Net"].name, "net", None),
        ('net.link("A", "B", weight=4)', link, None, 0),
        ('net.link("B", "D", weight=2)', link, None, 0),
        ('net.link("A", "D", weight=9)', link, None, 0),
    ]
    # each on the handle the first step built, through link's receiver parameter
    linked = tools["Net.link"].evidence
    assert linked is not None
    assert {s.receiver for s in route.evidence.session[1:]} == {linked.receiver}
    assert route.evidence.session[1].arguments == {"a": "A", "b": "B", "weight": 4}

    # The generated tests (run by the pipeline before registering) replay the setup calls.
    assert report.output_dir is not None
    generated = Path(report.output_dir) / "tests" / "validation_calls.json"
    calls = {c["tool"]: c for c in json.loads(generated.read_text())}
    replayed = calls[route.name]
    assert [s["on"] for s in replayed["session"]] == [None, 0, 0, 0]
    assert replayed["check"] == "expected-value"
