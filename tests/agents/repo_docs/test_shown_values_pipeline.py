"""A conversion whose tools are proven by values the repository shows in forms other than
``>>>`` outputs and literal assertions: a README comment under a call, a method called on an
instance its class holds, dates and durations written as their calls, and a suite's own
assertion helper; through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo
from pipeline_checks import value_evidence

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Almanac: distances on an ellipsoid and dates of feasts."""

import datetime

__all__ = ["Earth", "feast", "hamming", "span"]


class Earth:
    """An ellipsoid of a radius."""

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def arc(self, degrees: float) -> dict:
        """The length of an arc of ``degrees`` along the equator, and its angle."""
        return {"length": self.radius * degrees * 3.141592653589793 / 180, "degrees": degrees}


Earth.WGS84 = Earth(6378137.0)


def hamming(a: str, b: str) -> int:
    """How many places two words differ at."""
    return sum(x != y for x, y in zip(a, b))


def feast(year: int) -> datetime.date:
    """The feast's date in ``year``."""
    return datetime.date(year, 4, 1)


def span(days: int) -> datetime.timedelta:
    """A span of ``days``."""
    return datetime.timedelta(days=days)
'''

README = """\
# almanac

```python
import almanac

almanac.hamming('test', 'text')
# 1
```
"""

CONFTEST = """\
def assert_day(d, year, month):
    assert year == d.year
    assert month == d.month
"""

TESTS = """\
import unittest
from datetime import timedelta

from almanac import Earth, feast, span
from conftest import assert_day


class TestEarth(unittest.TestCase):
    def test_arc(self):
        arc = Earth.WGS84.arc(90.0)
        self.assertAlmostEqual(arc["length"], 10018754.171, delta=0.001)


def test_feast():
    assert_day(feast(2025), 2025, 4)


def test_span():
    assert span(2) == timedelta(days=2)
"""


@pytest.mark.integration
async def test_values_shown_in_comments_helpers_held_instances_and_dates_prove_tools(
    tmp_path: Path,
) -> None:
    repo = make_package_repo(
        tmp_path / "almanac",
        "almanac",
        "almanac",
        MODULE,
        {"README.md": README, "tests/conftest.py": CONFTEST, "tests/test_almanac.py": TESTS},
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))
    assert report.status == "success", (report.failure, report.tools)
    assert value_evidence(report, "hamming").expected == 1  # the README's ``# 1``
    arc = value_evidence(report, "Earth.arc")  # on Earth.WGS84, within the test's delta
    assert arc.arguments["handle"] == {"attribute": "WGS84"}
    assert arc.expected == 10018754.171
    feast = value_evidence(report, "feast")  # the helper's ``assert year == d.year``
    assert (feast.expected, feast.attribute) == (2025, "year")
    assert value_evidence(report, "span").expected == 172800.0  # timedelta(days=2)
