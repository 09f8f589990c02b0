"""A fixture library used as scientists use estimators: construct, fit (which returns the
estimator itself, as scikit-learn's and ruptures' do), then predict; and a function whose
result the README unpacks into two names that another function takes."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

ESTIMATOR_MODULE = '''\
"""Level estimators: a fixture."""

import functools

__all__ = ["LevelModel", "halves", "make_levels", "merge"]


def _checked(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return method(self, *args, **kwargs)

    return wrapper


class LevelModel:
    """Predicts a level: the mean of the values it was fitted on, scaled."""

    def __init__(self, scale=1.0):
        self.scale = scale
        self.level_ = None

    @_checked
    def fit(self, values):
        """Learn the level of ``values`` (a list of numbers).

        Returns
        -------
        self : LevelModel
        """
        if not values:
            raise ValueError("no values to fit")
        self.level_ = sum(values) / len(values)
        self.span_ = max(values) - min(values)
        return self

    def spread(self):
        """How far apart the fitted values lie."""
        if self.level_ is None:
            raise RuntimeError("This LevelModel instance is not fitted yet: call fit first")
        return self.span_

    def predict(self, offset):
        """The fitted level, scaled, plus ``offset``."""
        if self.level_ is None:
            raise RuntimeError("This LevelModel instance is not fitted yet: call fit first")
        return self.level_ * self.scale + offset


def make_levels(count):
    """A toy dataset: ``count`` levels, and the labels of each."""
    return [3 * i for i in range(count)], [f"level {i}" for i in range(count)]


def halves(values):
    """The first and the second half of ``values``."""
    middle = len(values) // 2
    return values[:middle], values[middle:]


def merge(head, tail, gap=0):
    """``head``, then ``gap``, then ``tail``, as one list."""
    return [*head, gap, *tail]
'''

ESTIMATOR_README = """\
# levelpack

```python
>>> from levelpack import LevelModel, halves, merge
>>> LevelModel(scale=2.0).fit([1, 2, 3]).predict(0.5)
4.5
>>> model = LevelModel().fit([10, 20])
>>> model.predict(1)
16.0
>>> head, tail = halves([1, 2, 3, 4])
>>> merge(head, tail, gap=9)
[1, 2, 9, 3, 4]
>>> levels, labels = make_levels(4)
>>> LevelModel().fit(levels).spread()
9
```
"""


def make_estimator_repo(root: Path) -> Path:
    """An estimator whose fit returns itself, and a function fed a tuple the README unpacks."""
    return make_package_repo(
        root, "levelpack", "levelpack", ESTIMATOR_MODULE, files={"README.md": ESTIMATOR_README}
    )
