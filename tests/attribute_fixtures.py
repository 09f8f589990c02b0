"""A fixture library whose results are objects read by their attributes, as a research
library's test suite reads a fitted result (``res = fit(...)`` then ``res.params``): the
README shows no code, the tests assert the attributes."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

ORBIT_MODULE = '''\
"""Orbits and line fits: a fixture."""

__all__ = ["LineFit", "Orbit", "fit_line", "periapsis"]


class Orbit:
    """A Keplerian orbit of a period (days) and an eccentricity."""

    def __init__(self, period: float, eccentricity: float) -> None:
        self.period = period
        self.eccentricity = eccentricity
        self.apsis = period * (1 + eccentricity)


class LineFit:
    """The least-squares line through some points."""

    def __init__(self, slope: float, intercept: float) -> None:
        self.slope = slope
        self.intercept = intercept


def periapsis(period: float, eccentricity: float) -> float:
    """The orbit's closest distance, in the units of its period."""
    return period * (1 - eccentricity)


def fit_line(xs: list[float], ys: list[float]) -> LineFit:
    """The least-squares line through the points ``(xs[i], ys[i])``."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return LineFit(slope, my - slope * mx)
'''

ORBIT_TESTS = """\
from orbits import Orbit, fit_line, periapsis


def test_orbit():
    orbit = Orbit(2.0, 0.5)
    assert orbit.apsis == 3.0
    assert periapsis(2.0, 0.5) == 1.0


def test_fit():
    res = fit_line([0.0, 1.0, 2.0], [1.0, 3.0, 5.0])
    assert res.slope == 2.0
    assert res.intercept == 1.0
"""


def make_orbit_repo(root: Path) -> Path:
    """The orbits fixture: objects proven by the attributes its tests assert."""
    return make_package_repo(
        root, "orbits", "orbits", ORBIT_MODULE, {"tests/test_orbits.py": ORBIT_TESTS}
    )
