"""A package repository whose tutorials take longer together than a small time budget
(issue 30): written here.

``slowpack`` holds ``wait``, which sleeps the seconds it is given, and three doctested
functions. Its unexecuted tutorials, in path order: ``tutorials/a_first.ipynb`` shows
``wait``; ``tutorials/b_tour.ipynb`` shows ``wait``, ``double`` and ``halve``;
``tutorials/c_again.ipynb`` shows ``wait`` and ``square``. Each waits 2 s a run and is run
twice (its reference, its reproduction), so the first run alone spends a 3 s budget.
``make_waiting_repo``: the same three, waiting the seconds given.
"""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo
from notebook_fixtures import code, markdown, notebook

SLOWPACK = '''\
"""Slow arithmetic: a metaserver test fixture."""

from __future__ import annotations

import time

__all__ = ["wait", "double", "halve", "square"]


def wait(seconds: float) -> float:
    """``seconds``, after sleeping that long.

    >>> wait(0.0)
    0.0
    """
    time.sleep(seconds)
    return seconds


def double(x: float) -> float:
    """Twice ``x``.

    >>> double(2.0)
    4.0
    """
    return 2 * x


def halve(x: float) -> float:
    """Half of ``x``.

    >>> halve(3.0)
    1.5
    """
    return x / 2


def square(x: float) -> float:
    """``x`` squared.

    >>> square(3.0)
    9.0
    """
    return x * x
'''

FIRST = notebook(markdown("# Waiting"), code("import slowpack\n\nslowpack.wait(2.0)"))
TOUR = notebook(
    markdown("# A tour"),
    code("import slowpack\n\nx = slowpack.wait(2.0)\nprint(slowpack.double(x))\nslowpack.halve(x)"),
)
AGAIN = notebook(
    markdown("# Squares"), code("import slowpack\n\nslowpack.square(slowpack.wait(2.0))")
)


def make_budget_repo(root: Path) -> Path:
    """The slowpack package and its three tutorials."""
    files = {
        "tutorials/a_first.ipynb": FIRST,
        "tutorials/b_tour.ipynb": TOUR,
        "tutorials/c_again.ipynb": AGAIN,
    }
    return make_package_repo(root, "slowpack", "slowpack", SLOWPACK, files=files)


def make_waiting_repo(root: Path, first: float, tour: float, again: float) -> Path:
    """slowpack whose three tutorials wait the seconds given a run, in path order."""
    files = {
        "tutorials/a_first.ipynb": FIRST.replace("wait(2.0)", f"wait({first})"),
        "tutorials/b_tour.ipynb": TOUR.replace("wait(2.0)", f"wait({tour})"),
        "tutorials/c_again.ipynb": AGAIN.replace("wait(2.0)", f"wait({again})"),
    }
    return make_package_repo(root, "slowpack", "slowpack", SLOWPACK, files=files)
