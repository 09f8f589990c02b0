"""A package repository whose docs pages build one thing block after block (issue 30),
written here.

``pagecalc`` holds an account type and a statement. Its pages:
``docs/tutorial.md``, a Markdown session whose ``>>>`` examples show outputs (a value, a
printed line) after Python blocks that set things up, a shell block and an unlabelled
output listing between them; ``docs/guide/usage.rst``, reST code directives that show no
output (the run makes the reference); ``docs/quickstart.md``, snippets that do not build
on each other (no session: not a tutorial).
"""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

PAGECALC = '''\
"""An account that grows: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["Account", "interest"]


def interest(balance: float, rate: float) -> float:
    """A year's interest on ``balance``.

    >>> interest(100.0, 0.1)
    10.0
    """
    return round(balance * rate, 4)


class Account:
    """A balance that deposits and grows."""

    def __init__(self, balance: float = 0.0) -> None:
        self.balance = balance

    def deposit(self, amount: float) -> float:
        """Add ``amount``; the new balance."""
        self.balance = round(self.balance + amount, 4)
        return self.balance

    def grow(self, rate: float, years: int) -> float:
        """Compound ``rate`` for ``years``; the new balance."""
        for _ in range(years):
            self.balance = round(self.balance + interest(self.balance, rate), 4)
        return self.balance

    def statement(self) -> str:
        """One line that reports the balance."""
        return f"balance {self.balance}"
'''

TUTORIAL_MD = """\
# Saving step by step

Install it first:

```bash
pip install pagecalc
```

Choose a rate:

```python
import pagecalc

rate = 0.05
```

Open an account and put money in:

```python
account = pagecalc.Account(100.0)
account.deposit(100.0)
```

which prints

```
200.0
```

Let it grow:

```pycon
>>> account.grow(rate, 2)
220.5
>>> print(account.statement())
balance 220.5
```
"""

USAGE_RST = """\
Usage
=====

Start an account:

.. code-block:: python

    from pagecalc import Account

    years = 3
    start = 50.0

Then grow it and print what it holds:

.. code-block:: python

    account = Account(start)
    account.grow(0.1, years)
    print(account.statement())
"""

QUICKSTART_MD = """\
# Quick start

```python
from pagecalc import interest
interest(10.0, 0.5)
```

```python
import pagecalc
pagecalc.Account(1.0).statement()
```
"""


def make_page_repo(root: Path) -> Path:
    """The pagecalc package and the three pages above."""
    return make_package_repo(
        root,
        "pagecalc",
        "pagecalc",
        PAGECALC,
        files={
            "docs/tutorial.md": TUTORIAL_MD,
            "docs/guide/usage.rst": USAGE_RST,
            "docs/quickstart.md": QUICKSTART_MD,
        },
    )
