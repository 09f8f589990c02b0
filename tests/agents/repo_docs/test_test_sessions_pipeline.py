"""A library whose README shows no code, proven through MCP by what its tests assert of
methods called on receivers the tests build and set up (``t = Tally(); t.add("a")`` then
``assert t.count("a") == 2``), of a function given an object a test built, and by the rows
of a parametrised test."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_checks import converted_with_tests, value_evidence
from receiver_fixtures import SUITE_TALLY, SUITE_WAVES

MODULE = (
    '"""Tallies and waves: a fixture proven only by the tests\' sessions."""\n\n'
    '__all__ = ["Tally", "Wave", "decompose", "doubled"]\n\n\n'
    + SUITE_TALLY
    + "\n\n"
    + SUITE_WAVES
    + '\n\ndef doubled(x):\n    """Twice ``x``."""\n    return 2 * x\n'
)

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
    report = await converted_with_tests(tmp_path, "tally_lite", MODULE, TESTS)
    for target, expected in (
        ("Tally.count", 2),
        ("Tally.total", 2),
        ("doubled", 6),
        ("decompose", [8, 10]),  # given the object the test built, its asserted item
    ):
        assert value_evidence(report, target).expected == expected
