"""Small repositories that tests build for themselves (never code from other projects)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from metaserver.contracts import Source, Workspace
from metaserver.settings import Settings

CALC_MODULE = '''\
"""Small arithmetic and text helpers: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["add", "clamp", "fibonacci", "mean", "slugify", "word_counts", "Counter"]


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first addend.
        b: the second addend.

    >>> add(2, 3)
    5
    """
    return a + b


def mean(values: list[float]) -> float:
    """The arithmetic mean of some numbers.

    >>> mean([1.0, 2.0, 6.0])
    3.0
    """
    return sum(values) / len(values)


def slugify(text: str, sep: str = "-") -> str:
    """Lower-case words joined by a separator.

    >>> slugify("Hello  World")
    'hello-world'
    """
    return sep.join(text.lower().split())


def fibonacci(n: int) -> list[int]:
    """The first n Fibonacci numbers.

    >>> fibonacci(7)
    [0, 1, 1, 2, 3, 5, 8]
    """
    numbers = [0, 1]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return numbers[:n]


def word_counts(text: str) -> dict[str, int]:
    """How often each word occurs.

    >>> word_counts("a b a")
    {'a': 2, 'b': 1}
    """
    counts: dict[str, int] = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def clamp(x: float, low: float = 0.0, high: float = 1.0) -> float:
    """Limit x to the interval [low, high].

    >>> clamp(1.5)
    1.0
    """
    return max(low, min(high, x))


def _private_helper() -> None:
    """Not part of the API."""


class Counter:
    """A class: becomes handle-based tools later, skipped for now."""

    def __init__(self) -> None:
        self.value = 0
'''

PYPROJECT = """\
[project]
name = "{name}"
version = "0.3.1"
description = "metaserver test fixture"
requires-python = ">=3.9"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["{package}"]
"""


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            "HOME": str(cwd),
            "PATH": "/usr/bin:/bin",
        },
    ).stdout.strip()


def make_package_repo(
    root: Path, name: str, package: str, module: str, files: dict[str, str] | None = None
) -> Path:
    """A git repository holding an installable package whose ``__init__`` is ``module``,
    and ``files`` (relative path: text) beside it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT.format(name=name, package=package))
    (root / package).mkdir(exist_ok=True)
    (root / package / "__init__.py").write_text(module)
    (root / "README.md").write_text(textwrap.dedent(f"# {name}\n\nA fixture.\n"))
    for relative, text in (files or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def make_calc_repo(root: Path, name: str = "calcpack", package: str = "calcpack") -> Path:
    """A git repository holding an installable package of typed, doctested functions."""
    return make_package_repo(root, name, package, CALC_MODULE)


REPAIR_MODULE = '''\
"""Functions that each need a different repair: a metaserver test fixture.

The ratio of two parts, as the README of a real project would show it:

>>> ratio("3:4")
0.75
"""

import time

__all__ = ["add", "shout", "ratio", "wait_forever", "double", "make_box", "negate", "square"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def negate(x: int) -> int:
    """The negative of x.

    >>> negate(5)
    -5
    """
    return -x


def square(x: float) -> float:
    """x squared.

    >>> square(1.5)
    2.25
    """
    return x * x


def shout(text: str) -> str:
    """Upper-case text with an exclamation mark, using a dependency it never declared.

    >>> shout("hi")
    'HI!'
    """
    import six  # undeclared: the environment lacks it until a repair installs it

    return six.ensure_str(text).upper() + "!"


def ratio(text: str) -> float:
    """The ratio written as "a:b"."""
    left, right = text.split(":")
    return int(left) / int(right)


def wait_forever(seconds: int) -> int:
    """Never returns.

    >>> wait_forever(1)
    1
    """
    while True:
        time.sleep(seconds)


def double(x: int) -> int:
    """Twice x (its code disagrees with its documentation).

    >>> double(2)
    4
    """
    return x * 3


class Box:
    """An object with no JSON form."""

    def __init__(self, content: str) -> None:
        self.content = content


def make_box(content: str) -> Box:
    """Put content in a box.

    >>> make_box("x").content
    'x'
    """
    return Box(content)
'''


def make_repair_repo(root: Path) -> Path:
    """A git repository whose functions exercise each repair of the validation loop."""
    return make_package_repo(root, "fixerpack", "fixerpack", REPAIR_MODULE)


SPARE_MODULE = '''\
"""Three documented functions, one of them broken, and an undocumented spare: a fixture."""

__all__ = ["add", "broken", "double", "reverse"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def broken(x: int) -> int:
    """Fails whatever it is given.

    >>> broken(1)
    2
    """
    raise RuntimeError("broken beyond repair")


def double(x: int) -> int:
    """Twice x.

    >>> double(2)
    4
    """
    return 2 * x


def reverse(text: str) -> str:
    """The text reversed."""
    return text[::-1]
'''


def make_spare_repo(root: Path) -> Path:
    """A git repository with a broken top-ranked function and a lower-ranked one that works."""
    return make_package_repo(root, "sparepack", "sparepack", SPARE_MODULE)


def shared_calc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Settings]:
    """The calc fixture repository and a home shared by this session's integration modules.

    The workspace has a fingerprint, so the environment built for it is kept in the home's
    environment cache and the next module restores it (a hard-linked copy) instead of
    building it again.
    """
    root = tmp_path_factory.getbasetemp() / "calcpack-shared"
    repo = root / "calcpack"
    if not repo.exists():
        make_calc_repo(repo)
    commit = git(repo, "rev-parse", "HEAD")
    source = Source(kind="local", location=str(repo), original=str(repo))
    space = Workspace(
        source=source,
        path=repo,
        commit=commit,
        distribution="calcpack",
        fingerprint=f"git:{repo}@{commit}",
    )
    return space, Settings(home=root / "home")


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


UNDECLARED_MODULE = '''\
"""Text helpers that import a distribution their pyproject never declares: a fixture."""

from __future__ import annotations

import six  # undeclared: the first import probe fails until the repair installs it

__all__ = ["shout", "whisper", "joined"]


def shout(text: str) -> str:
    """Upper case, with a bang.

    >>> shout("hi")
    'HI!'
    """
    return six.ensure_str(text).upper() + "!"


def whisper(text: str) -> str:
    """Lower case.

    >>> whisper("HI")
    'hi'
    """
    return six.ensure_str(text).lower()


def joined(words: list[str]) -> str:
    """Words joined by spaces.

    >>> joined(["a", "b"])
    'a b'
    """
    return " ".join(six.ensure_str(w) for w in words)
'''


def make_undeclared_repo(root: Path) -> Path:
    """A package whose top-level import needs ``six``, which it does not declare."""
    return make_package_repo(root, "loudpack", "loudpack", UNDECLARED_MODULE)


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


HELD_MODULE = '''\
"""Regions on an ellipsoid the package ships as a class attribute: a fixture. Nothing here
is annotated: the docstrings say what each argument is."""

__all__ = ["Ellipsoid", "Region", "polar"]


class Ellipsoid:
    """An ellipsoid by its equatorial radius and flattening; the class holds a standard one."""

    def __init__(self, radius, flattening):
        if not 0 <= flattening < 1 or radius < 10:
            raise ValueError("not an ellipsoid we model")
        self.radius, self.flattening = radius, flattening


Ellipsoid.UNIT = Ellipsoid(100.0, 0.5)


class Region:
    """Points on an ellipsoid."""

    def __init__(self, earth, closed=True):
        """Start an empty region.

        :param earth: an :class:`~heldpack.Ellipsoid` object
        :param closed: whether the last point joins the first
        """
        self.scale = earth.radius * (1 - earth.flattening)
        self.points = []

    def add(self, lat, lon):
        """Add a point; the number of points so far."""
        self.points.append((lat, lon))
        return len(self.points)


def polar(shape):
    """The polar radius of an ellipsoid.

    >>> polar(Ellipsoid.UNIT)
    50.0
    """
    return shape.radius * (1 - shape.flattening)
'''


def make_held_repo(root: Path) -> Path:
    """Unannotated parameters that take an instance a class holds (``Ellipsoid.UNIT``): one
    typed by its docstring's class role, one by the example that passes the instance."""
    return make_package_repo(root, "heldpack", "heldpack", HELD_MODULE)


EXTRA_MODULE = '''\
"""Small sums, and pairs in chunking.py (which needs the optional extra): a metaserver test
fixture."""

__all__ = ["add", "negate", "square"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def negate(x: int) -> int:
    """The negative of x.

    >>> negate(5)
    -5
    """
    return -x


def square(x: float) -> float:
    """x squared.

    >>> square(1.5)
    2.25
    """
    return x * x
'''

EXTRA_CHUNKING = '''\
"""Pairs of values: needs more-itertools, the package's optional extra "chunks"."""

import more_itertools

__all__ = ["pairs"]


def pairs(values: list[int]) -> list[list[int]]:
    """The values two by two."""
    return [list(chunk) for chunk in more_itertools.chunked(values, 2)]
'''

EXTRA_README = """\
# chunkpack

Install with `pip install chunkpack[chunks]` for pairs:

>>> from chunkpack.chunking import pairs
>>> pairs([1, 2, 3])
[[1, 2], [3]]
"""

EXTRA_PYPROJECT_TAIL = """
[project.optional-dependencies]
chunks = ["more-itertools==11.2.1"]
test = ["pytest"]
all = ["chunkpack[chunks,test]"]
"""


def make_extra_repo(root: Path) -> Path:
    """A package whose README uses a submodule that needs a declared optional extra."""
    repo = make_package_repo(
        root,
        "chunkpack",
        "chunkpack",
        EXTRA_MODULE,
        files={"chunkpack/chunking.py": EXTRA_CHUNKING, "README.md": EXTRA_README},
    )
    pyproject = repo / "pyproject.toml"
    # [project.optional-dependencies] must follow [project]'s keys, before [build-system].
    text = pyproject.read_text().replace(
        "\n[build-system]", EXTRA_PYPROJECT_TAIL + "\n[build-system]"
    )
    pyproject.write_text(text)
    git(repo, "commit", "-q", "-am", "extras")
    return repo


OBJECT_ARGUMENT_MODULE = '''\
"""Signals, and functions that take them: a metaserver test fixture."""

__all__ = ["Mix", "Response", "Signal", "Source", "Tone", "gain", "measure", "spread"]


class Signal:
    """A sampled signal, built from its samples (no JSON builds one: only a handle).

    >>> Signal(1.0, 3.0, 2.0)
    Signal(1.0, 3.0, 2.0)
    """

    def __init__(self, *samples: float) -> None:
        self.samples = list(samples)

    def __repr__(self) -> str:
        return "Signal(" + ", ".join(repr(s) for s in self.samples) + ")"

    def louder(self, other: "Signal") -> bool:
        """Whether its largest sample is larger than the ``other`` signal's."""
        return max(self.samples) > max(other.samples)


def gain(signal, factor: float = 2.0) -> float:
    """The largest sample times ``factor``.

    Parameters
    ----------
    signal : Signal
        The signal.
    factor : float
        The gain.
    """
    return max(signal.samples) * factor


def spread(signals) -> float:
    """Largest minus smallest sample over several signals, given as a list."""
    values = [v for s in signals for v in s.samples]
    return max(values) - min(values)


class Response:
    """What a signal measures to (no JSON builds one either)."""

    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def peak(self) -> float:
        """The largest value."""
        return max(self.values)


def measure(signal, scale: float = 1.0) -> Response:
    """The signal's response, scaled.

    Parameters
    ----------
    signal : Signal
        The signal.
    """
    return Response(*(v * scale for v in signal.samples))


class Mix:
    """Signals mixed together (no JSON builds one)."""

    def __init__(self, signals, name: str = "mix") -> None:
        self.signals = list(signals)
        self.name = name

    def peak(self) -> float:
        """The largest sample of all its signals."""
        return max(max(s.samples) for s in self.signals)


class Source:
    """Something with a strength; only its subclasses know which."""

    def strength(self) -> float:
        raise NotImplementedError("not implemented in subclass")

    def level(self, gain: float = 1.0) -> float:
        """The strength times ``gain``."""
        return self.strength() * gain


class Tone(Source):
    """A tone.

    >>> Tone(2.5)
    Tone(2.5)
    """

    def __init__(self, amplitude: float) -> None:
        self.amplitude = amplitude

    def strength(self) -> float:
        return self.amplitude

    def __repr__(self) -> str:
        return f"Tone({self.amplitude!r})"
'''

OBJECT_ARGUMENT_README = """\
# objpack

Set up a signal ``sig`` as you like, then:

```python
from objpack import gain, spread, Signal
gain(sig, 3.0)
```

Several signals at once:

>>> a = Signal(1.0, 2.0)
>>> b = Signal(4.0, 0.5)
>>> spread([a, b])
3.5

A response is measured from a signal:

>>> quiet = Signal(1.0, 5.0)
>>> resp = measure(quiet, scale=2.0)
>>> resp.peak()
10.0

One signal is louder than another:

>>> loud = Signal(1.0, 9.0)
>>> soft = Signal(2.0, 3.0)
>>> loud.louder(soft)
True

Signals are mixed:

>>> hi = Signal(1.0, 6.0)
>>> mix = Mix([hi, Signal(2.0, 7.5)], name="duo")
>>> mix.peak()
7.5
"""


def make_object_argument_repo(root: Path) -> Path:
    """Functions whose documented arguments are objects: one the README never builds (typed
    by the docstring), and a list of objects the README built (a function's, and a
    receiver's constructor's)."""
    return make_package_repo(
        root,
        "objpack",
        "objpack",
        OBJECT_ARGUMENT_MODULE,
        files={"README.md": OBJECT_ARGUMENT_README},
    )


ZONE_MODULE = '''\
"""Hours in time zones: a fixture whose zone parameter takes a name or a Zone object."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Stamp", "Zone", "midnight", "shift"]


class Zone:
    """A zone made from a rule function: no JSON builds one."""

    def __init__(self, rule: Callable[[int], int]) -> None:
        self.name = rule.__name__


def _name(tz: Zone | str) -> str:
    return tz if isinstance(tz, str) else tz.name


def shift(hour: int, tz: Zone | str) -> str:
    """The hour in a zone, given by name or as a Zone."""
    return f"{hour:02d}:00 {_name(tz)}"


def midnight() -> str:
    """Midnight, in no zone."""
    return "00:00"


class Stamp:
    """An hour of the day."""

    def __init__(self, hour: int) -> None:
        self.hour = hour

    def to(self, tz: Zone | str) -> str:
        """The stamp in another zone."""
        return shift(self.hour, tz)
'''

ZONE_README = """\
# zonepack

>>> from zonepack import Stamp, shift
>>> shift(9, "UTC")
'09:00 UTC'
>>> stamp = Stamp(7)
>>> stamp.to("CET")
'07:00 CET'
"""


def make_zone_repo(root: Path) -> Path:
    """Parameters annotated ``Zone | str``, where only a handle gives a Zone and the README
    passes the name."""
    return make_package_repo(
        root, "zonepack", "zonepack", ZONE_MODULE, files={"README.md": ZONE_README}
    )


NET_MODULE = '''\
"""Weighted links between named places: a fixture whose README sets an argument up by
calling its methods before the documented call."""

from __future__ import annotations

__all__ = ["Net", "route"]


class Net:
    """An undirected net of weighted links."""

    def __init__(self) -> None:
        self.links: dict[str, dict[str, float]] = {}

    def link(self, a: str, b: str, weight: float = 1.0) -> None:
        """Link ``a`` and ``b``."""
        self.links.setdefault(a, {})[b] = weight
        self.links.setdefault(b, {})[a] = weight


def route(net: Net, a: str, b: str) -> list[str]:
    """The lightest path from ``a`` to ``b``; raises KeyError when either is not linked."""
    best = {a: (0.0, [a])}
    todo = [a]
    while todo:
        todo.sort(key=lambda place: best[place][0])
        here = todo.pop(0)
        cost, path = best[here]
        for there, weight in net.links[here].items():
            if there not in best or cost + weight < best[there][0]:
                best[there] = (cost + weight, [*path, there])
                todo.append(there)
    return best[b][1]
'''

NET_README = """\
# netpack

```python
>>> from netpack import Net, route
>>> net = Net()
>>> net.link("A", "B", weight=4)
>>> net.link("B", "D", weight=2)
>>> net.link("A", "D", weight=9)
>>> route(net, "A", "D")
['A', 'B', 'D']

```
"""


def make_net_repo(root: Path) -> Path:
    """A function whose documented argument the README built and set up with its methods."""
    return make_package_repo(
        root, "netpack", "netpack", NET_MODULE, files={"README.md": NET_README}
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


SHAPE_MODULE = '''\
"""Regular shapes: a fixture whose functions leave their shape parameter unannotated, named
only by a docstring type in words or by the README's variable of that name."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Polygon", "corners", "perimeter", "regular"]


class Polygon:
    """A polygon whose corners a function places: no JSON builds one."""

    def __init__(self, sides: int, place: Callable[[int], float]) -> None:
        self.sides = sides
        self.place = place


def regular(sides: int) -> Polygon:
    """A regular polygon of unit sides."""
    return Polygon(sides, lambda i: float(i))


def perimeter(shape, side=1.0):
    """The length around a shape.

    Parameters
    ----------
    shape : a polygon
        The shape.
    side : float
        The length of a side.
    """
    return shape.sides * side


def corners(P):
    """Where the corners of a polygon are."""
    return [P.place(i) for i in range(P.sides)]
'''

SHAPE_README = """\
# shapepack

>>> from shapepack import regular
>>> P = regular(3)
>>> P.sides
3
"""


def make_shape_repo(root: Path) -> Path:
    """Functions whose object parameter is typed by docstring words (``shape : a polygon``)
    or by the README's variable (``P = regular(3)``), and built only by a factory."""
    return make_package_repo(
        root, "shapepack", "shapepack", SHAPE_MODULE, files={"README.md": SHAPE_README}
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


SOLVER_MODULE = '''\
"""A solver that runs an external program (never installed): a fixture whose documented
energy can only fail for want of that program, beside plain functions that pass."""

from __future__ import annotations

from ._runner import run_program

__all__ = ["Solver", "add", "double", "halve"]


class Solver:
    """Runs ``fixture-solver-absent`` on its input."""

    def __init__(self, label: str = "water") -> None:
        self.label = label

    def energy(self) -> float:
        """The energy the external program computes."""
        return float(run_program("fixture-solver-absent", self.label))


def add(a: int, b: int) -> int:
    """Sum.

    >>> add(2, 3)
    5
    """
    return a + b


def double(x: int) -> int:
    """Twice.

    >>> double(4)
    8
    """
    return 2 * x


def halve(x: float) -> float:
    """Half.

    >>> halve(3.0)
    1.5
    """
    return x / 2
'''

SOLVER_RUNNER = """\
import subprocess


def run_program(program: str, label: str) -> str:
    return subprocess.run([program, label], capture_output=True, text=True, check=True).stdout
"""

SOLVER_README = """\
# solverpack

```python
>>> from solverpack import Solver, add
>>> s = Solver("water")
>>> s.energy()
-76.4
>>> add(2, 3)
5

```
"""


def make_solver_repo(root: Path) -> Path:
    """A method that shells out to a program no environment has, and functions that pass."""
    files = {"README.md": SOLVER_README, "solverpack/_runner.py": SOLVER_RUNNER}
    return make_package_repo(root, "solverpack", "solverpack", SOLVER_MODULE, files=files)


DUE_MODULE = '''\
"""Schedules: a fixture whose documented calls pass standard library values written as
their constructors (``datetime(2019, 1, 14, 6)``, ``Decimal("3.10")``), to parameters
nothing annotates."""

__all__ = ["halve", "is_due", "later", "span"]


def span(lower, upper):
    """How far ``upper`` lies above ``lower``: numbers, or amounts.

    >>> span(0, 3)
    3
    >>> from decimal import Decimal
    >>> span(Decimal("1.5"), Decimal("4"))
    Decimal('2.5')
    """
    return upper - lower


def is_due(expr, when):
    """Whether ``when`` falls in the hour ``expr`` names.

    >>> from datetime import datetime
    >>> is_due("* 6", datetime(2019, 1, 14, 6, 30))
    True
    """
    return when.hour == int(expr.split()[1])


def later(when, hours):
    """``when``, that many hours later, as ISO text.

    >>> import datetime
    >>> later(datetime.datetime(2019, 1, 14, 6), 3)
    '2019-01-14T09:00:00'
    """
    from datetime import timedelta

    return (when + timedelta(hours=hours)).isoformat()


def halve(amount):
    """Half an amount, exactly.

    >>> from decimal import Decimal
    >>> halve(Decimal("3.10"))
    Decimal('1.55')
    """
    return amount / 2
'''


def make_due_repo(root: Path) -> Path:
    """Documented arguments that are standard library values built by their constructors."""
    return make_package_repo(root, "duepack", "duepack", DUE_MODULE)


CONSTANT_MODULE = '''\
"""Coins, purses and delivery plans: a metaserver test fixture whose README passes the
package's module-level constants (an instance of its class, a table of plain data)."""

from __future__ import annotations

__all__ = ["EUR", "PLANS", "USD", "Coin", "Purse", "fee", "worth"]


class Coin:
    """A currency."""

    def __init__(self, code: str = "XXX", cents: int = 100) -> None:
        self.code, self.cents = code, cents

    def __repr__(self) -> str:
        return self.code


class Purse:
    """Some coins of one currency."""

    def __init__(self, amount: int = 0, coin: str | Coin | None = None) -> None:
        self.amount = amount
        self.coin = COINS[coin] if isinstance(coin, str) else coin

    def total(self) -> int:
        """The purse's worth in cents."""
        return self.amount * self.coin.cents


def worth(amount: int, coin: Coin) -> int:
    """``amount`` coins in cents."""
    return amount * coin.cents


def fee(plan: dict) -> int:
    """What a delivery plan costs."""
    return plan["fee"] * plan["days"]


EUR = Coin("EUR", 200)
USD = Coin("USD", 100)
COINS = {"EUR": EUR, "USD": USD}
PLANS = {"fast": {"fee": 2, "days": 1}, "slow": {"fee": 1, "days": 5}}
'''

CONSTANT_README = """\
# constpack

>>> from constpack import Purse, EUR, PLANS, fee, worth
>>> p = Purse(3, EUR)
>>> p.total()
600
>>> worth(2, EUR)
400
>>> fee(PLANS['slow'])
5
"""


def make_constant_repo(root: Path) -> Path:
    """A README whose calls pass module-level constants: ``EUR`` (a ``Coin`` the module
    holds) and ``PLANS['slow']`` (plain data)."""
    return make_package_repo(
        root, "constpack", "constpack", CONSTANT_MODULE, files={"README.md": CONSTANT_README}
    )
