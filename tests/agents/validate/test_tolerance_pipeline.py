"""A conversion whose tools are proven by values the test suite asserts within a tolerance
(``np.isclose(p, 1.877e-06)``, ``assert_allclose(x, ref, rtol=1e-4)``), compared within it,
through MCP; a value outside the asserted tolerance is no proof."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_checks import converted_with_tests, value_evidence

from metaserver.contracts import Tolerance

MODULE = '''\
"""Small numerics: a fixture whose tests assert values within a tolerance."""

__all__ = ["tail", "growth", "drift"]


def tail(z):
    """A tail probability of ``z`` (a rough one)."""
    return 1.877004e-06 * z


def growth(rates):
    """Each rate compounded once over ten steps."""
    return [(1 + r) ** 10 for r in rates]


def drift(x):
    """``x`` nudged."""
    return x + 0.01
'''

TESTS = """\
import numpy as np
from numpy.testing import assert_allclose
from num_lite import drift, growth, tail


def test_tail():
    assert np.isclose(tail(1), 1.877e-06)


def test_growth():
    assert_allclose(growth([0.01, 0.02]), [1.1046, 1.21899], rtol=1e-04)


def test_drift():
    assert np.allclose(drift(1.0), 1.0)
"""


@pytest.mark.integration
async def test_values_asserted_within_a_tolerance_are_compared_within_it(tmp_path: Path) -> None:
    report = await converted_with_tests(tmp_path, "num_lite", MODULE, TESTS)
    for target, expected, tolerance in (
        ("tail", 1.877e-06, Tolerance(rel=1e-05, abs=1e-08)),
        ("growth", [1.1046, 1.21899], Tolerance(rel=1e-04, abs=0.0)),
    ):
        evidence = value_evidence(report, target)
        assert (evidence.expected, evidence.tolerance) == (expected, tolerance)
    # the test's value is not what drift returns, even within numpy's tolerance: no proof
    (drift,) = [t for t in report.tools if t.target.endswith(":drift")] or [None]
    assert drift is None or drift.evidence is None or drift.evidence.check != "expected-value"
