"""A function whose docs never say it takes an array, proven through MCP on its test's
value once the repair reads the error (``'list' object has no attribute 'ravel'``: the test's
``np.array([...])`` travelled as its list) and sends the list as an array."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo, pyproject_with

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Signals: a fixture whose functions use their argument as a numpy array."""

import numpy as np

__all__ = ["peak", "span", "total"]


def peak(signal):
    """The flat index of a signal's largest value."""
    return int(np.argmax(signal.ravel()))


def span(values):
    """The largest value less the smallest.

    >>> span([4, 1, 9])
    8
    """
    return max(values) - min(values)


def total(values):
    """The sum.

    >>> total([1, 2, 3])
    6
    """
    return sum(values)
'''

TESTS = """\
import numpy as np
from signalpack import peak


def test_peak():
    assert peak(np.array([[1, 5], [3, 2]])) == 1
"""

PYPROJECT = pyproject_with("signalpack", "signalpack", ["numpy"])


@pytest.mark.integration
async def test_a_list_used_as_an_array_is_sent_as_one(tmp_path: Path) -> None:
    repo = make_package_repo(
        tmp_path / "signalpack",
        "signalpack",
        "signalpack",
        MODULE,
        {"pyproject.toml": PYPROJECT, "tests/test_peak.py": TESTS},
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    peak = tools["peak"]
    assert peak.status == "passed", peak.error
    assert peak.repaired == "array_codec"
    assert peak.evidence is not None and peak.evidence.check == "expected-value"
    assert peak.evidence.result == 1
    # the others took their lists as lists: no codec they did not need
    assert tools["span"].repaired is None and tools["total"].repaired is None
