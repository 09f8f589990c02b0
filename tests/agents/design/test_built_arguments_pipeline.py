"""A function proven through MCP on an argument its test built with the package's own
loader (``data = load_dataset("pairs")``, then ``assert spread(data, scale=2)["range"] == 16``):
the loader's tool is replayed into the parameter before the call."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_checks import converted_with_tests, value_evidence

MODULE = '''\
"""Datasets and a statistic: a fixture whose tests build their data with its loader."""

__all__ = ["load_dataset", "spread", "width"]

_DATASETS = {"pairs": [[1, 4], [2, 9]], "flat": [[1, 1]]}


def load_dataset(name):
    """The named dataset, as rows of numbers."""
    return [list(row) for row in _DATASETS[name]]


def spread(data, scale=1):
    """The range of every value in ``data`` (rows of numbers), times ``scale``, by name."""
    values = [v for row in data for v in row]
    return {"range": (max(values) - min(values)) * scale, "count": len(values)}


def width(data):
    """The number of values in each row of ``data``."""
    return [len(row) for row in data]
'''

TESTS = """\
from stats_rows import load_dataset, spread, width


def test_spread():
    data = load_dataset("pairs")
    assert spread(data, scale=2)["range"] == 16


def test_width():
    assert width([[1, 2, 3]]) == [3]
"""


@pytest.mark.integration
async def test_an_argument_the_test_built_with_the_packages_loader_is_replayed(
    tmp_path: Path,
) -> None:
    report = await converted_with_tests(tmp_path, "stats_rows", MODULE, TESTS)
    evidence = value_evidence(report, "spread")
    assert evidence.expected == 16
    (step,) = evidence.session
    assert (step.target, step.arguments, step.into) == (
        "stats_rows:load_dataset",
        {"name": "pairs"},
        "data",
    )
    assert evidence.arguments == {"scale": 2, "data": [[1, 4], [2, 9]]}
    assert [(r.op, r.keys) for r in evidence.reads] == [("index", ["range"])]
