"""A package repository whose worked examples store no outputs, or store them as an older
library printed them (issue 30), written here.

``tutcalc`` holds doctested arithmetic, a bar chart saved as a PNG (standard library only:
fixture environments install nothing), an unseeded sampler, and a vector type that prints
itself as numpy 2 prints an array (``array([9, -1, 3, 1])``; an environment here has no
numpy). Its tutorials: ``tutorials/savings.ipynb`` saved without outputs, with a parameters
cell; ``examples/plot_growth.py``, a sphinx-gallery script that saves a figure;
``docs/tutorials/reading.ipynb``, unexecuted, reading ``../data/start.txt``;
``notebooks/steps.ipynb``, whose stored output is the list numpy 1 printed
(``[9, -1, 3, 1]``); ``examples/sampling.ipynb``, unexecuted and unseeded;
``tutorials/plot_rates.py``, whose loader reads ``data/rates.txt`` from where it runs, a
file the repository ships in its top ``data/`` folder.
"""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo
from notebook_fixtures import code, markdown, notebook, value

TUTCALC = '''\
"""Worked-example arithmetic: a metaserver test fixture."""

from __future__ import annotations

import os
import random
import struct
import zlib

__all__ = ["grow", "total", "percent", "differences", "sample", "bar_chart", "Vector"]


def grow(start: float, rate: float, years: int) -> list[float]:
    """The value after each year of compound growth, the start included.

    >>> grow(100.0, 0.1, 2)
    [100.0, 110.0, 121.0]
    """
    values = [start]
    for _ in range(years):
        values.append(round(values[-1] * (1 + rate), 4))
    return values


def total(values: list[float]) -> float:
    """The sum of some numbers.

    >>> total([1.0, 2.5])
    3.5
    """
    return sum(values)


def percent(part: float, whole: float) -> float:
    """``part`` as a percentage of ``whole``.

    >>> percent(1.0, 4.0)
    25.0
    """
    return 100.0 * part / whole


class Vector:
    """Integers, shown as numpy 2 shows an array."""

    def __init__(self, items: list[int]) -> None:
        self.items = list(items)

    def __repr__(self) -> str:
        return "array([" + ", ".join(str(i) for i in self.items) + "])"


def differences(values: list[int]) -> Vector:
    """Each value minus the one before it."""
    return Vector([b - a for a, b in zip(values, values[1:])])


def load_rates(name: str, folder: str = "data") -> list[float]:
    """The rates in the file ``name`` of ``folder`` (under the working directory); the
    project's site would be asked for it when absent, which a sandboxed run cannot."""
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        raise OSError(f"{path} is absent: it would be downloaded")
    with open(path) as handle:
        return [float(x) for x in handle.read().split()]


def sample(n: int) -> list[float]:
    """``n`` random numbers, unseeded."""
    return [round(random.random(), 6) for _ in range(n)]


def bar_chart(values: list[float], path: str) -> str:
    """Draw ``values`` as bars into the PNG file ``path``; its path."""
    width, height = 12 * len(values), 60
    top = max(values) or 1.0
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            bar = values[x // 12]
            ink = x % 12 < 9 and (height - y) <= bar / top * (height - 4)
            row += bytes([20, 20, 120, 255] if ink else [255, 255, 255, 255])
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")
    with open(path, "wb") as handle:
        handle.write(png)
    return path
'''

SAVINGS = notebook(
    markdown("# Savings over the years"),
    code("rate = 0.05\nyears = 3"),
    code(
        "import tutcalc\n\nvalues = tutcalc.grow(100.0, rate, years)\n"
        "print(len(values), 'values')\nvalues[-1]"
    ),
)

PLOT_GROWTH = '''\
"""
Growth as a bar chart
=====================

Each year's value, drawn.
"""

import tutcalc

years = 4
rate = 0.1

# %%
# The values, computed.
values = tutcalc.grow(100.0, rate, years)
print(values)

# %%
# The chart, saved.
tutcalc.bar_chart(values, "growth.png")
'''

READING = notebook(
    markdown("# Growth from a stored start"),
    code(
        "import tutcalc\n\nstart = float(open('../data/start.txt').read())\n"
        "tutcalc.grow(start, 0.1, 2)"
    ),
)

DIFFERENCES = notebook(
    markdown("# Differences"),
    code(
        "import tutcalc\ntutcalc.differences([1, 10, 9, 12, 13])",
        value("[9, -1, 3, 1]"),
    ),
)

# A sphinx-gallery script in tutorials/ whose loader names the file and its folder apart;
# the repository ships the file in its top data/ folder, where a docs build from the root
# finds it (the tutorial's own folder holds none).
PLOT_RATES = '''\
"""
Rates from the shipped data
===========================
"""

import tutcalc

# %%
rates = tutcalc.load_rates("rates.txt", folder="data")
print(tutcalc.total(rates))
'''

SAMPLING = notebook(
    markdown("# Random draws"),
    code("import tutcalc\ntutcalc.sample(3)"),
)


def make_tutorial_repo(root: Path) -> Path:
    """The tutcalc package and the six tutorials above."""
    return make_package_repo(
        root,
        "tutcalc",
        "tutcalc",
        TUTCALC,
        files={
            "tutorials/savings.ipynb": SAVINGS,
            "examples/plot_growth.py": PLOT_GROWTH,
            "docs/tutorials/reading.ipynb": READING,
            "docs/data/start.txt": "200.0\n",
            "notebooks/steps.ipynb": DIFFERENCES,
            "examples/sampling.ipynb": SAMPLING,
            "tutorials/plot_rates.py": PLOT_RATES,
            "data/rates.txt": "0.5 0.25\n",
        },
    )
