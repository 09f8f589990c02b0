"""A method that refuses a receiver nobody fitted, proven through MCP once the repair sets
the receiver up with the call of its class that passed (``fit``, then ``predict``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Centring: a fixture estimator that must be fitted before it predicts."""

__all__ = ["Centre"]


class Centre:
    """Values less the mean it learnt, times a scale.

    >>> c = Centre()
    >>> c.fit([1.0, 2.0, 3.0])
    Centre(mean=2.0)
    """

    def __init__(self, scale=1.0):
        self.scale = scale

    def __repr__(self):
        mean = getattr(self, "mean_", None)
        return f"Centre(mean={mean})" if mean is not None else "Centre()"

    def fit(self, values):
        """Learn the mean of ``values``; returns the estimator."""
        self.mean_ = sum(values) / len(values)
        return self

    def predict(self, values):
        """Each value less the mean learnt, times the scale."""
        if not hasattr(self, "mean_"):
            raise ValueError("This Centre instance is not fitted yet: call fit first")
        return [(v - self.mean_) * self.scale for v in values]
'''

TESTS = """\
from centring import Centre


def test_predict():
    model = Centre(scale=2.0)
    model.fit([1.0, 2.0, 3.0])
    assert len(model.predict([4.0])) == 1
"""


@pytest.mark.integration
async def test_a_method_is_proven_on_a_receiver_its_sibling_fitted(tmp_path: Path) -> None:
    repo = make_package_repo(
        tmp_path / "centring", "centring", "centring", MODULE, {"tests/test_centre.py": TESTS}
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    assert tools["Centre.fit"].status == "passed", tools["Centre.fit"].error
    predict = tools["Centre.predict"]
    assert predict.status == "passed", predict.error
    assert predict.repaired == "next_example"
    assert predict.evidence is not None
    # built as fit's receiver was, fit replayed on it with its data, then predict
    assert [(s.member, s.arguments) for s in predict.evidence.session] == [
        (None, {}),
        ("fit", {"values": [1.0, 2.0, 3.0]}),
    ]
    assert predict.evidence.arguments["values"] == [1.0, 2.0, 3.0]
    assert predict.failure_type is None
