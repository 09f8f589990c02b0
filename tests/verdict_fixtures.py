"""A fixture repository for honest verdicts: a ``;``-separated doctest session, a call
that kills its server and one that hangs it, a tool
whose validated call its server's own tests cannot replay, and a documented value that
really is wrong."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

VERDICT_MODULE = '''\
"""Small statistics and probes: a metaserver test fixture."""

from __future__ import annotations

import os
import time
from pathlib import Path

__all__ = ["Gauge", "RunningStats", "claim", "crash", "spin", "triple"]


class RunningStats:
    """A running mean of numbers.

    >>> rs = RunningStats()
    >>> rs.push(1); rs.push(2); rs.push(6)
    >>> rs.mean()
    3.0
    """

    def __init__(self) -> None:
        self.values: list[float] = []

    def push(self, value: float) -> None:
        """Count one more number."""
        self.values.append(value)

    def mean(self) -> float:
        """The mean of the numbers pushed so far (none: an error)."""
        return sum(self.values) / len(self.values)


class Gauge:
    """A gauge whose documented reading is wrong.

    >>> g = Gauge(2)
    >>> g.read()
    5
    """

    def __init__(self, level: int) -> None:
        self.level = level

    def read(self) -> int:
        """The level, doubled."""
        return self.level * 2


def triple(value: int) -> int:
    """Three times ``value``.

    >>> triple(4)
    12
    """
    return 3 * value


def claim(tag: str) -> str:
    """Claim ``tag``, once per working directory (a second claim fails).

    >>> claim("a")
    'a'
    """
    marker = Path(f"claimed-{tag}")
    if marker.exists():
        raise RuntimeError(f"{tag!r} was claimed already")
    marker.write_text(tag)
    return tag


def crash(code: int) -> int:
    """Abort the interpreter, as a crashing C extension would."""
    os.abort()
    return code


def spin(rounds: int) -> int:
    """Wait for ever."""
    while True:
        time.sleep(0.5)
'''


def make_verdict_repo(root: Path) -> Path:
    """The verdict fixture as a git repository of the package ``verdictpack``."""
    return make_package_repo(root, "verdictpack", "verdictpack", VERDICT_MODULE)
