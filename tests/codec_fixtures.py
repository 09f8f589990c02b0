"""A repository whose functions take arguments as scientists pass them: a function (an
integrand), set literals, sets by annotation, untyped parameters with defaults."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

ARGUMENT_MODULE = '''\
"""Arguments as scientists pass them: a metaserver test fixture."""

__all__ = ["column_sums", "common", "count_lines", "integrate", "scale", "union_size"]


def integrate(f, a, b, n=200):
    """Integrate ``f`` from ``a`` to ``b`` by the midpoint rule.

    Parameters
    ----------
    f : callable f(x, *args)
        The integrand.
    a : float
        Lower limit.
    b : float
        Upper limit.
    n : int, optional
        Number of intervals.

    Returns
    -------
    float
    """
    h = (b - a) / n
    return round(sum(f(a + (i + 0.5) * h) for i in range(n)) * h, 4)


def common(first, second):
    """The elements both sets hold, sorted.

    >>> common({"H2O", "CO2", "O2"}, {"O2", "H2O", "N2"})
    ['H2O', 'O2']
    """
    return sorted(first & second)


def union_size(first: set[str], second: frozenset[str]) -> int:
    """How many elements the two sets hold together.

    >>> union_size({"a", "b"}, {"b", "c"})
    3
    """
    return len(first | second)


def count_lines(fname):
    """The number of non-empty lines of a text file.

    Parameters
    ----------
    fname : str
        Path to the text file to read.

    >>> count_lines("argpack/data/sample.txt")
    3
    """
    with open(fname, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip())


def column_sums(fname):
    """The sum of each column of a CSV table.

    Parameters
    ----------
    fname : str
        Path to the CSV file to read (a header line, then numbers).
    """
    with open(fname, encoding="utf-8") as handle:
        header, *rows = [line.strip().split(",") for line in handle if line.strip()]
    return {name: sum(float(row[i]) for row in rows) for i, name in enumerate(header)}


def scale(values, factor=2):
    """Each value times ``factor``.

    >>> scale([1, 2], 3)
    [3, 6]
    """
    return [v * factor for v in values]
'''

ARGUMENT_README = """\
# argpack

```python
>>> from argpack import common
>>> common({"NaCl", "H2O"}, {"H2O", "KCl"})
['H2O']
```
"""


def make_argument_repo(root: Path) -> Path:
    """The package ``argpack``: an integrand, set literals, sets, untyped defaults, and a
    function that reads a data file the package ships (``argpack/data/sample.txt``)."""
    files = {
        "README.md": ARGUMENT_README,
        "argpack/data/sample.txt": "H 0 0 0\nH 0 0 0.74\n\nend\n",
        "tests/data/numbers.csv": "a,b\n1,2\n3,4.5\n",
    }
    return make_package_repo(root, "argpack", "argpack", ARGUMENT_MODULE, files)
