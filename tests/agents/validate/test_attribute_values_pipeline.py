"""A conversion whose tools are proven by the attributes the test suite asserts of their
results (``res = fit_line(...)`` then ``assert res.slope == 2.0``), through MCP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attribute_fixtures import make_orbit_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_results_are_proven_by_the_attributes_the_tests_assert(tmp_path: Path) -> None:
    repo = make_orbit_repo(tmp_path / "orbits")
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", (report.failure, report.tools)
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for target, attribute, value in (("Orbit", "apsis", 3.0), ("fit_line", "slope", 2.0)):
        tool = tools[target]
        assert tool.status == "passed", tool.error
        assert tool.evidence is not None and tool.evidence.check == "expected-value"
        assert tool.evidence.attribute == attribute
        assert tool.evidence.expected == value
        result = tool.evidence.result
        assert isinstance(result, dict) and result["fields"][attribute] == value

    # The generated server's own replay compares the fields too.
    assert report.output_dir is not None
    calls = json.loads((Path(report.output_dir) / "tests" / "validation_calls.json").read_text())
    fitted = next(c for c in calls if c["tool"] == tools["fit_line"].name)
    assert fitted["result"]["fields"] == {"slope": 2.0}
