"""Documented arguments written as standard library constructors (``datetime(2019, 1, 14,
6, 30)``, ``Decimal("3.10")``) through MCP: sent as the JSON their codecs decode, to
parameters nothing annotates, and checked against the documented values."""

from __future__ import annotations

from pathlib import Path

import pytest
from value_fixtures import make_due_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_standard_library_values_in_the_docs_are_arguments(tmp_path: Path) -> None:
    repo = make_due_repo(tmp_path / "duepack")

    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    expected = {
        "is_due": ({"expr": "* 6", "when": "2019-01-14T06:30:00"}, True),
        "later": ({"when": "2019-01-14T06:00:00", "hours": 3}, "2019-01-14T09:00:00"),
        "halve": ({"amount": "3.10"}, "Decimal('1.55')"),
    }
    # one example's Decimal types ``lower`` leniently: the other example's numbers pass too
    span = tools["span"]
    assert span.status == "passed", span.error
    assert span.evidence is not None and span.evidence.check == "expected-value"
    for name, (arguments, value) in expected.items():
        tool = tools[name]
        assert tool.status == "passed", (name, tool.error)
        assert tool.evidence is not None
        assert tool.evidence.check == "expected-value", name
        assert (tool.evidence.arguments, tool.evidence.expected) == (arguments, value)
