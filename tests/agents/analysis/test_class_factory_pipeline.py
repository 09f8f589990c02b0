"""A receiver built by a class method (``v = Ver.parse("1.4")``, then ``v.bump()``) through
MCP: the class method's object stays a handle, as a constructor's does, though the class
has a JSON form of its own, and the method's documented record value is checked field by
field."""

from __future__ import annotations

from pathlib import Path

import pytest
from receiver_fixtures import make_version_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_class_method_builds_the_receiver_of_a_documented_call(tmp_path: Path) -> None:
    repo = make_version_repo(tmp_path / "verpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    bump = tools["Ver.bump"]
    assert bump.status == "passed", bump.error
    assert bump.evidence is not None
    assert bump.evidence.check == "expected-value"
    assert bump.evidence.expected == "Ver(major=2, minor=0)"
    # the result is a new Ver, travelling as its fields: the README's record, from 1.4
    assert bump.evidence.result == {"major": 2, "minor": 0}
    [step] = bump.evidence.session
    assert (step.line, step.tool) == ('v = Ver.parse("1.4")', tools["Ver.parse"].name)
    # the class method's own tool hands back the object, not its fields
    parse = tools["Ver.parse"].evidence
    assert parse is not None and isinstance(parse.result, dict)
    assert set(parse.result) == {"handle", "type", "repr"}
