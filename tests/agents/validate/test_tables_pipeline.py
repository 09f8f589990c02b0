"""Frames a docstring prints (``describe(x).round(3)``) prove their tools through MCP cell by
cell, on data the docs drew from a seeded random stream; a printed table the code does not
reproduce refuses its tool (probe/tables.py, probe/random_values.py, validate/tables.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo, pyproject_with

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Summaries: a fixture whose docs print the frames its functions return."""

import numpy as np
import pandas as pd

__all__ = ["describe", "size", "tally", "stale"]


def describe(values, label="x"):
    """A one-row table of the mean, spread and size of ``values`` (array_like).

    >>> import numpy as np
    >>> rng = np.random.default_rng(42)
    >>> x = rng.normal(loc=3, size=20)
    >>> describe(x, label="first").round(3)
       label   mean  spread   n
    0  first  2.967   0.848  20
    """
    values = np.asarray(values, dtype=float)
    return pd.DataFrame(
        {"label": [label], "mean": [values.mean()], "spread": [values.std()], "n": [values.size]}
    )


def tally(values):
    """The mean and the lowest of ``values`` (array_like), by row.

    >>> import numpy as np
    >>> np.random.seed(7)
    >>> y = np.random.normal(size=8)
    >>> t = tally(y)
    >>> t.round(2)
       mean       name
    a -0.11  all of it
    b -1.75        low
    """
    values = np.asarray(values, dtype=float)
    return pd.DataFrame(
        {"mean": [values.mean(), values.min()], "name": ["all of it", "low"]}, index=["a", "b"]
    )


def size(values):
    """How many values there are.

    >>> size([1.0, 2.0])
    2
    """
    return len(values)


def stale(values):
    """The size of ``values``, documented before the code changed.

    >>> stale([1.0, 2.0, 3.0])
       n
    0  4
    """
    return pd.DataFrame({"n": [len(values)]})
'''

PYPROJECT = pyproject_with("framepack", "framepack", ["numpy", "pandas"])


@pytest.mark.integration
async def test_printed_frames_prove_their_tools_cell_by_cell(tmp_path: Path) -> None:
    repo = make_package_repo(
        tmp_path / "framepack",
        "framepack",
        "framepack",
        MODULE,
        {"pyproject.toml": PYPROJECT},
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for name in ("describe", "tally"):
        evidence = tools[name].evidence
        assert tools[name].status == "passed", tools[name].error
        assert evidence is not None and evidence.check == "expected-value", (name, evidence)
        assert isinstance(evidence.expected, str) and "mean" in evidence.expected
    # the seeded draws reached the tool as the docs drew them: 20 numbers, not made-up ones
    describe = tools["describe"].evidence
    assert describe is not None and len(describe.arguments["values"]) == 20  # type: ignore[arg-type]
    assert describe.result == [{"label": "first", "mean": pytest.approx(2.967, abs=5e-4),
                                "spread": pytest.approx(0.848, abs=5e-4), "n": 20}]  # fmt: skip
    # a table the code no longer prints is the repository's own disagreement
    stale = tools["stale"]
    assert (stale.status, stale.failure_type) == ("dropped", "repo_internal_bug"), stale
    # ... and the repository's own line, run unchanged by the doctest runner, agrees
    assert stale.evidence is not None and "stale([1.0, 2.0, 3.0])" in stale.evidence.replay
