"""Repositories whose methods are proven on a receiver the docs build: a doctest session
(``g = Grid("A1")``, then ``g.code()``), README lines, a chain of calls, a class method, and
attributes the README assigns before the call. Built with ``fixture_repos.make_package_repo``."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

SESSION_MODULE = '''\
"""Grids, tallies, gauges and totals: a metaserver test fixture for doctest sessions."""

from __future__ import annotations

__all__ = ["Ellipsoid", "Gauge", "Grid", "Tally", "total"]


class Grid:
    """A named cell of a grid.

    >>> Grid("C3").name
    'C3'
    """

    def __init__(self, name: str = "Z9") -> None:
        self.name = name

    def code(self) -> int:
        """The cell's numeric code.

        >>> g = Grid("A1")
        >>> g.code()
        4328
        """
        return 4327 + (ord(self.name[0]) - ord("A")) * 26 + int(self.name[1:])

    def area(self) -> int:
        """Cells in the grid up to this one, on a receiver this docstring never builds.

        >>> big.area()
        2600
        """
        return (ord(self.name[0]) - ord("A") + 1) * int(self.name[1:])


class Tally:
    """A running total of numbers.

    >>> acc = Tally()
    >>> acc.add(1)
    >>> acc.add(5)
    >>> acc.total()
    6
    """

    def __init__(self) -> None:
        self.values: list[int] = []

    def add(self, value: int) -> None:
        """Count one more number."""
        self.values.append(value)

    def total(self) -> int:
        """The sum so far."""
        return sum(self.values)


class Gauge:
    """A gauge whose documented reading is wrong (a real bug of this repository).

    >>> gauge = Gauge(3)
    >>> gauge.read()
    30
    """

    def __init__(self, level: int) -> None:
        self.level = level

    def read(self) -> int:
        """The reading."""
        return self.level * 100


class Ellipsoid:
    """An ellipsoid by its equatorial radius and flattening; the class holds a standard one."""

    EARTH: Ellipsoid

    def __init__(self, radius: float, flattening: float) -> None:
        self.radius, self.flattening = radius, flattening

    def polar(self) -> float:
        """The polar radius.

        >>> Ellipsoid.EARTH.polar()
        75.0
        """
        return self.radius * (1 - self.flattening)


Ellipsoid.EARTH = Ellipsoid(100.0, 0.25)


def total(values: list[int]) -> int:
    """Twice the sum of some numbers (not Tally.total).

    >>> total([1, 2, 4])
    14
    """
    return 2 * sum(values)
'''


def make_session_repo(root: Path) -> Path:
    """Methods proven only by their doctest sessions: a receiver built in the example, a
    stateful walk-through, a class attribute as receiver, a same-named function, and a
    documented value that is wrong."""
    return make_package_repo(root, "sessionpack", "sessionpack", SESSION_MODULE)


README_SESSION_MODULE = '''\
"""Dots and discs whose methods only the README shows in use: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["Dot", "Disc", "distance", "farthest", "diagonal"]


class Dot:
    """A point in the plane."""

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def norm(self) -> float:
        """The distance from the origin."""
        return float((self.x**2 + self.y**2) ** 0.5)

    def total(self) -> float:
        """Both coordinates added."""
        return self.x + self.y

    def grow(self, radius):
        """The disc of this radius around the dot."""
        if not isinstance(radius, float) or radius <= 0:
            raise ValueError("radius must be a positive float")
        return Disc(self, radius)


class Disc:
    """A disc: a centre and a radius."""

    def __init__(self, centre: Dot, radius: float) -> None:
        self.centre, self.radius = centre, radius


def distance(a: Dot, b: Dot) -> float:
    """How far apart two dots are."""
    return Dot(a.x - b.x, a.y - b.y).norm()


def diagonal(r: float):
    """The dot at (r, r)."""
    return Dot(r, r)


def farthest(*dots):
    """The largest distance of some dots from the origin."""
    return max(dot.norm() for dot in dots)
'''

README_SESSION_README = """\
# shapepack

Grow a disc around a dot:

```python
from shapepack import Dot
disc = Dot(1.0, 2.0).grow(3.0)
```

How far is a dot from the origin?

>>> Dot(3.0, 4.0).norm()
5.0

And between two dots?

>>> from shapepack import distance
>>> far = Dot(6.0, 8.0)
>>> distance(far, Dot(0.0, 0.0))
10.0
>>> from shapepack import farthest
>>> farthest(Dot(0.0, 1.0), far)
10.0
>>> from shapepack import diagonal
>>> d = diagonal(2.5)
>>> d.total()
5.0
"""


def make_readme_session_repo(root: Path) -> Path:
    """Methods with no example of their own, called in the README on a receiver that the
    README's own line builds."""
    return make_package_repo(
        root,
        "shapepack",
        "shapepack",
        README_SESSION_MODULE,
        files={"README.md": README_SESSION_README},
    )


CHAIN_MODULE = '''\
"""Clock times whose README calls methods on what other calls returned: a metaserver test
fixture."""

from __future__ import annotations

__all__ = ["Clock", "noon"]


class Clock:
    """A time of day, in minutes after midnight."""

    def __init__(self, minutes: int = 0) -> None:
        self.minutes = minutes

    def later(self, minutes: int) -> Clock:
        """The clock that many minutes later."""
        return Clock(self.minutes + minutes)

    def label(self) -> str:
        """The time as HH:MM."""
        return f"{self.minutes // 60:02d}:{self.minutes % 60:02d}"

    def hours(self) -> float:
        """The hours since midnight."""
        return self.minutes / 60

    def count(self) -> int:
        """Not a clock: a number, whose calls end a chain."""
        return self.minutes


def noon() -> Clock:
    """Twelve o'clock."""
    return Clock(720)
'''

CHAIN_README = """\
# clockpack

>>> from clockpack import Clock, noon
>>> noon().later(90).label()
'13:30'
>>> evening = Clock(600).later(480)
>>> evening.hours()
18.0
"""


def make_chain_repo(root: Path) -> Path:
    """Methods the README calls only on the result of another call (a chain), on a receiver
    built by the package's function or constructor."""
    return make_package_repo(
        root, "clockpack", "clockpack", CHAIN_MODULE, files={"README.md": CHAIN_README}
    )


VERSION_MODULE = '''\
"""Version numbers: a record with a JSON form of its own (``to_dict``), read from text by
a class method and raised by methods that return a new one: a fixture."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", bound="Ver")

__all__ = ["Ver"]


class Ver:
    """A version: major and minor."""

    def __init__(self, major: int, minor: int = 0) -> None:
        self.major, self.minor = major, minor

    @classmethod
    def parse(cls: type[T], text: str) -> T:
        """Read a version from its text."""
        major, _, minor = text.partition(".")
        return cls(int(major), int(minor or 0))

    def bump(self) -> Ver:
        """The next major version."""
        return Ver(self.major + 1, 0)

    def to_dict(self) -> dict[str, int]:
        """The version's fields."""
        return {"major": self.major, "minor": self.minor}

    def __repr__(self) -> str:
        return f"Ver(major={self.major}, minor={self.minor})"
'''

VERSION_README = """\
# verpack

>>> from verpack import Ver
>>> v = Ver.parse("1.4")
>>> v.bump()
Ver(major=2, minor=0)
"""


def make_version_repo(root: Path) -> Path:
    """A method whose README receiver is built by a class method of its class (annotated
    ``-> T``), on a class whose objects otherwise travel as their fields."""
    return make_package_repo(
        root, "verpack", "verpack", VERSION_MODULE, files={"README.md": VERSION_README}
    )


METER_MODULE = '''\
"""A meter whose reading depends on attributes its README assigns: a fixture whose
documented value exists only after ``m.scale = Scale(factor=2)`` and ``m.offset = 1``
(``factor`` passed into ``**options``)."""

from __future__ import annotations

__all__ = ["Meter", "Scale"]


class Scale:
    """A factor readings are multiplied by (an option, as some libraries take theirs)."""

    def __init__(self, **options: int) -> None:
        self.factor = options.get("factor", 1)


class Meter:
    """Reads values through a scale the user assigns."""

    def __init__(self) -> None:
        self.scale: Scale | None = None
        self.offset = 0

    def read(self, x: int) -> int:
        """``x`` through the scale, plus the offset; ValueError before a scale is set."""
        if self.scale is None:
            raise ValueError("no scale set")
        return x * self.scale.factor + self.offset
'''

METER_README = """\
# meterpack

```python
>>> from meterpack import Meter, Scale
>>> m = Meter()
>>> m.scale = Scale(factor=2)
>>> m.offset = 1
>>> m.read(3)
7

```
"""


def make_meter_repo(root: Path) -> Path:
    """A method whose documented value depends on attributes the README assigns."""
    return make_package_repo(
        root, "meterpack", "meterpack", METER_MODULE, files={"README.md": METER_README}
    )


SUITE_TALLY = '''\
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
'''
"""A class whose methods only the test suite's sessions prove (its README shows no code):
``tests/probe/test_members.py`` and ``test_test_sessions_pipeline.py``."""

SUITE_WAVES = '''\
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
'''
"""A function a test gives an object it built (``decompose([3, 1, 4, 1], Wave("db"))``)."""
