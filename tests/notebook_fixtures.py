"""A package repository with executed notebooks, written here as nbformat 4 JSON (issue #14).

``growth`` has a tagged parameters cell, reads a data file of the repository, and has
numbers, text, a written file and outputs that match its code; ``drift`` stores a value its
code does not compute; ``fetch`` needs the network; ``timing`` uses a cell magic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixture_repos import make_package_repo

NBCALC = '''\
"""Growth arithmetic: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["grow", "total", "summary", "percent"]


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


def summary(values: list[float]) -> dict[str, float]:
    """First, last and count of a series.

    >>> summary([1.0, 3.0])
    {'first': 1.0, 'last': 3.0, 'n': 2}
    """
    return {"first": values[0], "last": values[-1], "n": len(values)}


def percent(part: float, whole: float) -> float:
    """``part`` as a percentage of ``whole``.

    >>> percent(1.0, 4.0)
    25.0
    """
    return 100.0 * part / whole
'''


def code(source: str, *outputs: dict[str, Any], tags: list[str] | None = None) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {"tags": tags} if tags else {},
        "source": source.splitlines(keepends=True),
        "outputs": list(outputs),
    }


def markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def stdout(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def value(text: str) -> dict[str, Any]:
    return {
        "output_type": "execute_result",
        "execution_count": 1,
        "metadata": {},
        "data": {"text/plain": text},
    }


def notebook(*cells: dict[str, Any]) -> str:
    return json.dumps(
        {
            "cells": list(cells),
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


GROWTH = notebook(
    markdown("# Compound growth\n\nHow savings grow."),
    code('rate = 0.05\nyears = 3\nlabel = "savings"', tags=["parameters"]),
    code(
        "%matplotlib inline\nimport nbcalc\n\nstart = float(open('data/start.txt').read())\n"
        "values = nbcalc.grow(start, rate, years)\n"
        "print(label, len(values))\nvalues[-1]",
        stdout("savings 4\n"),
        value("115.7625"),
    ),
    code(
        'with open("report.txt", "w") as handle:\n'
        '    handle.write(f"{label}: {values[-1]:.2f}\\n")\n'
        "nbcalc.summary(values)",
        value("{'first': 100.0,\n 'last': 115.7625,\n 'n': 4}"),
    ),
)

DRIFT = notebook(
    code("import nbcalc\nnbcalc.total([1.0, 2.0, 3.0])", value("7.0")),
)

FETCH = notebook(
    code(
        'import requests\nimport nbcalc\nrows = requests.get("https://example.org/x").json()\n'
        "nbcalc.total(rows)",
        value("3.0"),
    ),
)

TIMING = notebook(
    code("%%time\nimport nbcalc\nnbcalc.total([1.0])", value("1.0")),
)


def make_notebook_repo(root: Path) -> Path:
    """The nbcalc package, four doctested functions and the notebooks above."""
    return make_package_repo(
        root,
        "nbcalc",
        "nbcalc",
        NBCALC,
        files={
            "tutorials/growth.ipynb": GROWTH,
            "tutorials/data/start.txt": "100.0\n",
            "notebooks/drift.ipynb": DRIFT,
            "examples/fetch.ipynb": FETCH,
            "examples/timing.ipynb": TIMING,
        },
    )
