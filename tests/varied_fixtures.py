"""A package repository whose unexecuted tutorial fixes one parameter's value elsewhere
(issue 30, corner's ``custom``): written here.

``gridpack`` holds ``reshape``, which splits a flat list into rows and refuses a size that
does not divide, and ``scaled``. Its notebook ``tutorials/grid.ipynb`` binds ``ndim,
nsamples, scale = 2, 50, 2.0`` and builds ``ndim * 4 * nsamples // 5`` values into
``4 * nsamples // 5`` rows: any ``ndim`` and ``scale`` work, but ``nsamples`` must stay a
multiple of 5, which the tutorial states nowhere but in that arithmetic.
"""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo
from notebook_fixtures import code, markdown, notebook

GRIDPACK = '''\
"""Rows of numbers: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["reshape", "scaled"]


def reshape(values: list[float], rows: int) -> list[list[float]]:
    """``values`` split into ``rows`` rows of equal length.

    >>> reshape([1.0, 2.0, 3.0, 4.0], 2)
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if rows <= 0 or len(values) % rows:
        raise ValueError(f"cannot reshape {len(values)} values into {rows} rows")
    width = len(values) // rows
    return [values[i * width : (i + 1) * width] for i in range(rows)]


def scaled(rows: list[list[float]], factor: float) -> list[float]:
    """Each row's sum times ``factor``.

    >>> scaled([[1.0, 2.0]], 2.0)
    [6.0]
    """
    return [round(sum(row) * factor, 6) for row in rows]
'''

GRID = notebook(
    markdown("# A grid of samples"),
    code("ndim, nsamples, scale = 2, 50, 2.0"),
    code(
        "import gridpack\n\n"
        "flat = [float(i % 7) for i in range(ndim * 4 * nsamples // 5)]\n"
        "rows = gridpack.reshape(flat, 4 * nsamples // 5)\n"
        "print(len(rows), 'rows')\n"
        "gridpack.scaled(rows, scale)[:3]"
    ),
)


def make_varied_repo(root: Path) -> Path:
    """The gridpack package and its one tutorial."""
    return make_package_repo(
        root, "gridpack", "gridpack", GRIDPACK, files={"tutorials/grid.ipynb": GRID}
    )
