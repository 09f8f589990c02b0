"""A library whose README shows no code, proven through MCP by what its tests assert of
methods called on receivers the tests build and set up (``t = Tally(); t.add("a")`` then
``assert t.count("a") == 2``), of a function given an object a test built, and by the rows
of a parametrised test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Tallies: a fixture whose methods are proven only by the tests' sessions."""

__all__ = ["Tally", "Wave", "decompose", "doubled"]


class Tally:
    """Counts of items, added one at a time."""

    def __init__(self, start=0):
        self.items = []
        self.start = start

    def add(self, item):
        """Count ``item`` once more."""
        self.items.append(item)

    def count(self, item):
        """How many times ``item`` was added."""
        return self.items.count(item)

    def total(self):
        """The items added, plus the start."""
        return self.start + len(self.items)


class Wave:
    """A named wave: its taps."""

    def __init__(self, name):
        self.name = name
        self.taps = len(name)


def decompose(values, wave):
    """The values in pairs of sums and differences, scaled by the wave's taps."""
    sums = [(a + b) * wave.taps for a, b in zip(values[::2], values[1::2])]
    diffs = [(a - b) * wave.taps for a, b in zip(values[::2], values[1::2])]
    return sums, diffs


def doubled(x):
    """Twice ``x``."""
    return 2 * x
'''

TESTS = """\
import pytest
from numpy.testing import assert_allclose
from tally_lite import Tally, Wave, decompose, doubled


def test_count():
    t = Tally()
    t.add("a")
    t.add("b")
    t.add("a")
    assert t.count("a") == 2


@pytest.mark.parametrize("start, expected", [(0, 2), (5, 7)])
def test_total(start, expected):
    t = Tally(start)
    t.add("x")
    t.add("y")
    assert t.total() == expected


def test_decompose():
    w = Wave("db")
    sums, diffs = decompose([3, 1, 4, 1], w)
    assert_allclose(sums, [8, 10])


@pytest.mark.parametrize("x, expected", [(3, 6), (4, 8)])
def test_doubled(x, expected):
    assert doubled(x) == expected
"""


@pytest.mark.integration
async def test_methods_are_proven_on_receivers_the_tests_built(tmp_path: Path) -> None:
    repo = make_package_repo(
        tmp_path / "tally", "tally-lite", "tally_lite", MODULE, {"tests/test_tally.py": TESTS}
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", (report.failure, report.tools)
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for target, expected in (
        ("Tally.count", 2),
        ("Tally.total", 2),
        ("doubled", 6),
        ("decompose", [8, 10]),  # given the object the test built, its asserted item
    ):
        tool = tools[target]
        assert tool.status == "passed", tool.error
        evidence = tool.evidence
        assert evidence is not None and evidence.check == "expected-value", (target, evidence)
        assert evidence.expected == expected
