"""The closeness a test asserts a value with, read where it is looser than a shown number's."""

from __future__ import annotations

import ast
from pathlib import Path

from metaserver.agents.repo_docs.closeness import MAX_ABS, MAX_REL, asserted_close
from metaserver.agents.repo_docs.usage import mine_usage
from metaserver.contracts import Tolerance

TESTS = """\
import math
import numpy as np
import pytest
from numpy.testing import assert_, assert_allclose, assert_almost_equal
from stats import core


def test_closeness():
    stats = core.test([1, 2, 3])
    assert np.isclose(stats.at[0, "pval"], 1.877e-06)
    assert np.allclose(core.spread([1, 5]), [6.4, 4.5], atol=1e-06)
    assert math.isclose(core.mean([1, 2]), 1.5)
    assert_(np.allclose(core.coef([1, 2]), [0.5, 0.25], 1e-05))
    assert_allclose(core.fit([1, 2]), [0.1, 0.2], rtol=1e-04)
    assert_almost_equal(core.ratio(1, 3), 0.33333, decimal=5)
    assert core.scale(2) == pytest.approx(4.0, rel=1e-05)


def test_too_loose():
    assert np.allclose(core.guess([1]), [2.0], rtol=0.1)
    assert_allclose(core.guess([2]), [3.0], atol=0.5)
    assert_almost_equal(core.guess([3]), 4.0, decimal=2)
    assert np.allclose(core.guess([4]), [5.0], rtol=tol)


def test_tight():
    assert_allclose(core.exact([1]), [2.0])
"""


def test_asserted_closeness_is_read_with_its_tolerance() -> None:
    found = {
        ast.unparse(left): (ast.unparse(right), tolerance)
        for left, right, tolerance in asserted_close(ast.parse(TESTS))
    }
    numpy = Tolerance(rel=1e-05, abs=1e-08)
    assert found == {
        "stats.at[0, 'pval']": ("1.877e-06", numpy),
        "core.spread([1, 5])": ("[6.4, 4.5]", Tolerance(rel=1e-05, abs=1e-06)),
        "core.mean([1, 2])": ("1.5", Tolerance(rel=1e-09, abs=0.0)),
        "core.coef([1, 2])": ("[0.5, 0.25]", numpy),
        "core.fit([1, 2])": ("[0.1, 0.2]", Tolerance(rel=1e-04, abs=0.0)),
        "core.ratio(1, 3)": ("0.33333", Tolerance(rel=0.0, abs=1.5 * 10.0**-5)),
        "core.scale(2)": ("4.0", Tolerance(rel=1e-05, abs=1e-12)),
    }  # looser than MAX_REL / MAX_ABS, unreadable, or tight (asserted_pairs'): none
    assert MAX_REL < 0.1 and MAX_ABS < 1.5e-02


def test_a_call_asserted_closely_is_an_example_with_that_tolerance(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"test", "spread", "guess", "exact"})
    (spread,) = usage.calls["spread"]
    assert (spread.args, spread.expected, spread.tolerance) == (
        [[1, 5]],
        [6.4, 4.5],
        Tolerance(rel=1e-05, abs=1e-06),
    )
    (test,) = usage.calls["test"]  # what the test read of the result, within numpy's default
    assert (test.expected, [r.op for r in test.reads], test.tolerance) == (
        1.877e-06,
        ["index"],
        Tolerance(rel=1e-05, abs=1e-08),
    )
    assert not any(c.has_expected for c in usage.calls["guess"])
    (exact,) = usage.calls["exact"]
    assert (exact.expected, exact.tolerance) == ([2.0], None)


def _read_close(tests: str) -> dict[str, tuple[str, Tolerance]]:
    """Each side a test asserts close to a value: that value's text, and the tolerance."""
    return {
        ast.unparse(left): (ast.unparse(right), tolerance)
        for left, right, tolerance in asserted_close(ast.parse(tests))
    }


def test_an_absolute_tolerance_is_read_against_the_size_of_the_number_it_compares() -> None:
    tests = (
        "def test_distance(self):\n"
        "    self.assertAlmostEqual(geo.distance(1, 2), 5853226, delta=0.5)\n"
        "    self.assertAlmostEqual(geo.angle(1, 2), 53.2, delta=0.5)\n"
        "    self.assertAlmostEqual(geo.size(1, 2), 3000.5, places=3)\n"
    )
    found = _read_close(tests)
    # 0.5 m of 5853 km is 1e-7 of it; 0.5 degrees of 53 is 1%: too loose to prove a value
    assert found == {
        "geo.distance(1, 2)": ("5853226", Tolerance(rel=0.0, abs=0.5)),
        "geo.size(1, 2)": ("3000.5", Tolerance(rel=0.0, abs=0.5 * 10.0**-3)),
    }


def test_an_approx_absolute_tolerance_is_read_against_the_number_it_wraps() -> None:
    tests = (
        "def test_sun():\n"
        "    assert sun.elevation(o, d) == pytest.approx(23.102501151619506, abs=0.001)\n"
        "    assert sun.azimuth(o, d) == pytest.approx(276.21, abs=0.1)\n"
        "    assert sun.zenith(o, d) == pytest.approx(0.5, abs=0.001)\n"
    )
    found = _read_close(tests)
    # 0.001 of 23.1 is 4e-5 of it; 0.1 of 276 is 4e-4, and 0.001 of 0.5 is 2e-3: too loose
    assert found == {
        "sun.elevation(o, d)": ("23.102501151619506", Tolerance(rel=1e-06, abs=0.001)),
    }
