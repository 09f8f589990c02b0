"""A fixture repository for honest verdicts: a ``;``-separated doctest session, a call
that kills its server and one that hangs it, a tool
whose validated call its server's own tests cannot replay, a documented value that
really is wrong, a README value older than the code its tests check, and a random sample
whose tests assert its shape (one too large to answer whole), and a table shown by printing
it."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

VERDICT_MODULE = '''\
"""Small statistics and probes: a metaserver test fixture."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

__all__ = [
    "Gauge",
    "blank",
    "RunningStats",
    "claim",
    "consonants",
    "crash",
    "noise",
    "powers",
    "spin",
    "squares",
    "triple",
]


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


def consonants(word: str) -> str:
    """The first letter and the consonants after it, in capitals, a doubled one once."""
    kept = [c for i, c in enumerate(word.upper()) if i == 0 or c not in "AEIOU"]
    return "".join(c for i, c in enumerate(kept) if i == 0 or c != kept[i - 1])


class Table(list):
    """Rows of numbers that know their shape, as an array does."""

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), len(self[0]) if self else 0)


def noise(rows: int, cols: int) -> Table:
    """``rows`` x ``cols`` random numbers in [0, 1), new each call."""
    return Table([[random.random() for _ in range(cols)] for _ in range(rows)])


def blank(rows: int, cols: int) -> Table:
    """A ``rows`` x ``cols`` image of zeros."""
    return Table([[0.0] * cols for _ in range(rows)])


def squares(rows: int) -> None:
    """Print a table of the first ``rows`` squares.

    >>> squares(4)  # doctest: +ELLIPSIS
    n  square
    0  0
    ...
    3  9
    """
    print("n  square")
    for n in range(rows):
        print(f"{n}  {n * n}")


def powers(rows: int) -> None:
    """Print the squares and cubes of the first ``rows`` numbers.

    >>> powers(3)
    n  square  cube
    0       0     0
    1       1     1
    2       4     8
    """
    print("n  square  cube")
    for n in range(rows):
        print(f"{n}  {n * n:6d}  {n**3:4d}")


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


# The README still shows what ``consonants`` gave before doubled letters were merged; the
# tests check the code as it is.
VERDICT_README = """# verdictpack

>>> from verdictpack import consonants
>>> consonants("Jellyfish")
'JLLFSH'
"""

VERDICT_TESTS = """from verdictpack import blank, consonants, noise


def test_consonants():
    assert consonants("abc") == "ABC"


def test_noise():
    out = noise(2, 3)
    assert out.shape == (2, 3)


def test_blank():
    image = blank(600, 700)
    assert image.shape == (600, 700)
"""


def make_verdict_repo(root: Path) -> Path:
    """The verdict fixture as a git repository of the package ``verdictpack``."""
    files = {"README.md": VERDICT_README, "tests/test_verdictpack.py": VERDICT_TESTS}
    return make_package_repo(root, "verdictpack", "verdictpack", VERDICT_MODULE, files)
