"""Repositories whose documented arguments are objects of the package, which only a handle
gives: built by the README (a list of them too) or never built (typed by a docstring, by
docstring words or by the README's variable), set up by their own methods before the call
(``net.link(...)``), or a name beside the object (``tz: Zone | str``). Built with
``fixture_repos.make_package_repo``."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

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
