"""A conversion whose tools are proven by what the test suite reads of their results
before it asserts a value (``round(summarise(v)["mean"], 3) == 2.333``,
``tabulate(3)[0][:2] == [1, 2]``, ``len(tabulate(3)) == 3``), through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_checks import converted_with_tests, value_evidence

MODULE = '''\
"""Small statistics: a fixture whose tests assert parts of results."""

__all__ = ["summarise", "tabulate", "scaled"]


def summarise(values):
    """The mean and range of ``values``, by name."""
    return {"mean": sum(values) / len(values), "range": max(values) - min(values)}


def tabulate(size):
    """The multiplication table of 1..size, one row per factor."""
    return [[i * j for j in range(1, size + 1)] for i in range(1, size + 1)]


def scaled(values, factor):
    """Each value times ``factor``."""
    return [v * factor for v in values]
'''

TESTS = """\
from stats_lite import scaled, summarise, tabulate


def test_summarise():
    assert round(summarise([1, 2, 4])["mean"], 3) == 2.333


def test_tabulate():
    table = tabulate(4)
    assert table[1][:3] == [2, 4, 6]


def test_scaled():
    assert len(scaled([1.5, 2.5], 3)) == 2
"""


@pytest.mark.integration
async def test_results_are_proven_by_what_the_tests_read_of_them(tmp_path: Path) -> None:
    report = await converted_with_tests(tmp_path, "stats_lite", MODULE, TESTS)
    for target, expected, reads in (
        ("summarise", 2.333, [("index", ["mean"]), ("round", [])]),
        ("tabulate", [2, 4, 6], [("index", [1]), ("index", [{"slice": [None, 3, None]}])]),
        ("scaled", 2, [("len", [])]),
    ):
        evidence = value_evidence(report, target)
        assert evidence.expected == expected
        assert [(r.op, r.keys) for r in evidence.reads] == reads
    # the whole answer travels to the client; the read is validation's
    assert value_evidence(report, "summarise").result == {"mean": 7 / 3, "range": 3}
