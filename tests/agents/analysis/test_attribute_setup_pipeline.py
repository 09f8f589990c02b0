"""A receiver set up by attribute assignments (``m.scale = Scale(factor=2)``, ``m.offset = 1``)
through MCP: each assignment is replayed through the class's setter tool before the
documented call, so the documented value is checked exactly, and the generated tests
replay them too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from receiver_fixtures import make_meter_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_attribute_assignments_are_replayed_before_the_call(tmp_path: Path) -> None:
    repo = make_meter_repo(tmp_path / "meterpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    read = tools["Meter.read"]
    assert read.status == "passed", read.error
    assert read.evidence is not None
    # Without the assignments read raises; without the offset it answers 6.
    assert read.evidence.check == "expected-value"
    assert read.evidence.result == 7
    steps = [(s.line, s.tool, s.assign) for s in read.evidence.session]
    assert steps == [
        ("m.scale = Scale(factor=2)", tools["Scale"].name, None),
        ("m = Meter()", tools["Meter"].name, None),
        ("m.scale = Scale(factor=2)", tools["Meter.scale"].name, "scale"),
        ("m.offset = 1", tools["Meter.offset"].name, "offset"),
    ]
    assert read.evidence.session[2].takes == {"value": 0}
    # ``factor`` went into Scale's ``**options``: its tool takes them as an object
    assert read.evidence.session[0].arguments == {"options": {"factor": 2}}
    assert read.evidence.session[3].arguments == {"value": 1}
    # The setters are tools of their own, proven on the session's Meter.
    assert tools["Meter.scale"].status == "passed", tools["Meter.scale"].error
    assert tools["Meter.scale"].name == "meter_set_scale"

    # The generated tests (run by the pipeline before registering) replay the assignments.
    assert report.output_dir is not None
    generated = Path(report.output_dir) / "tests" / "validation_calls.json"
    calls = {c["tool"]: c for c in json.loads(generated.read_text())}
    replayed = calls[read.name]
    assert [s.get("assign") for s in replayed["session"]] == [None, None, "scale", "offset"]
    assert replayed["check"] == "expected-value"
    assert replayed["result"] == 7
