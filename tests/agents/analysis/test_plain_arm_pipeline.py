"""A conversion whose parameters take a name or an object only a handle gives (``tz: Zone |
str``): the README's names pass, through MCP, with their documented values."""

from __future__ import annotations

from pathlib import Path

import pytest
from argument_fixtures import make_zone_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_plain_arm_beside_a_handle_only_class_takes_the_documented_value(
    tmp_path: Path,
) -> None:
    repo = make_zone_repo(tmp_path / "zonepack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for name, result in (("shift", "09:00 UTC"), ("Stamp.to", "07:00 CET")):
        tool = tools[name]
        assert tool.status == "passed", tool.error
        assert tool.evidence is not None
        assert tool.evidence.check == "expected-value"
        assert tool.evidence.result == result
    assert {"shift", "to"} <= set(report.coverage.covered)
