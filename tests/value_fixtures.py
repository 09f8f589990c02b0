"""Repositories whose documented arguments are written as names or constructor calls that a
tool takes as JSON: an instance its class holds (``Ellipsoid.UNIT``), the package's
module-level constants (``EUR``, ``PLANS['slow']``), and standard library values
(``datetime(2019, 1, 14, 6)``, ``Decimal("3.10")``). Built with
``fixture_repos.make_package_repo``."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

HELD_MODULE = '''\
"""Regions on an ellipsoid the package ships as a class attribute: a fixture. Nothing here
is annotated: the docstrings say what each argument is."""

__all__ = ["Ellipsoid", "Region", "polar"]


class Ellipsoid:
    """An ellipsoid by its equatorial radius and flattening; the class holds a standard one."""

    def __init__(self, radius, flattening):
        if not 0 <= flattening < 1 or radius < 10:
            raise ValueError("not an ellipsoid we model")
        self.radius, self.flattening = radius, flattening


Ellipsoid.UNIT = Ellipsoid(100.0, 0.5)


class Region:
    """Points on an ellipsoid."""

    def __init__(self, earth, closed=True):
        """Start an empty region.

        :param earth: an :class:`~heldpack.Ellipsoid` object
        :param closed: whether the last point joins the first
        """
        self.scale = earth.radius * (1 - earth.flattening)
        self.points = []

    def add(self, lat, lon):
        """Add a point; the number of points so far."""
        self.points.append((lat, lon))
        return len(self.points)


def polar(shape):
    """The polar radius of an ellipsoid.

    >>> polar(Ellipsoid.UNIT)
    50.0
    """
    return shape.radius * (1 - shape.flattening)
'''


def make_held_repo(root: Path) -> Path:
    """Unannotated parameters that take an instance a class holds (``Ellipsoid.UNIT``): one
    typed by its docstring's class role, one by the example that passes the instance."""
    return make_package_repo(root, "heldpack", "heldpack", HELD_MODULE)


DUE_MODULE = '''\
"""Schedules: a fixture whose documented calls pass standard library values written as
their constructors (``datetime(2019, 1, 14, 6)``, ``Decimal("3.10")``), to parameters
nothing annotates."""

__all__ = ["halve", "is_due", "later", "span"]


def span(lower, upper):
    """How far ``upper`` lies above ``lower``: numbers, or amounts.

    >>> span(0, 3)
    3
    >>> from decimal import Decimal
    >>> span(Decimal("1.5"), Decimal("4"))
    Decimal('2.5')
    """
    return upper - lower


def is_due(expr, when):
    """Whether ``when`` falls in the hour ``expr`` names.

    >>> from datetime import datetime
    >>> is_due("* 6", datetime(2019, 1, 14, 6, 30))
    True
    """
    return when.hour == int(expr.split()[1])


def later(when, hours):
    """``when``, that many hours later, as ISO text.

    >>> import datetime
    >>> later(datetime.datetime(2019, 1, 14, 6), 3)
    '2019-01-14T09:00:00'
    """
    from datetime import timedelta

    return (when + timedelta(hours=hours)).isoformat()


def halve(amount):
    """Half an amount, exactly.

    >>> from decimal import Decimal
    >>> halve(Decimal("3.10"))
    Decimal('1.55')
    """
    return amount / 2
'''


def make_due_repo(root: Path) -> Path:
    """Documented arguments that are standard library values built by their constructors."""
    return make_package_repo(root, "duepack", "duepack", DUE_MODULE)


CONSTANT_MODULE = '''\
"""Coins, purses and delivery plans: a metaserver test fixture whose README passes the
package's module-level constants (an instance of its class, a table of plain data)."""

from __future__ import annotations

__all__ = ["EUR", "PLANS", "USD", "Coin", "Purse", "fee", "worth"]


class Coin:
    """A currency."""

    def __init__(self, code: str = "XXX", cents: int = 100) -> None:
        self.code, self.cents = code, cents

    def __repr__(self) -> str:
        return self.code


class Purse:
    """Some coins of one currency."""

    def __init__(self, amount: int = 0, coin: str | Coin | None = None) -> None:
        self.amount = amount
        self.coin = COINS[coin] if isinstance(coin, str) else coin

    def total(self) -> int:
        """The purse's worth in cents."""
        return self.amount * self.coin.cents


def worth(amount: int, coin: Coin) -> int:
    """``amount`` coins in cents."""
    return amount * coin.cents


def fee(plan: dict) -> int:
    """What a delivery plan costs."""
    return plan["fee"] * plan["days"]


EUR = Coin("EUR", 200)
USD = Coin("USD", 100)
COINS = {"EUR": EUR, "USD": USD}
PLANS = {"fast": {"fee": 2, "days": 1}, "slow": {"fee": 1, "days": 5}}
'''

CONSTANT_README = """\
# constpack

>>> from constpack import Purse, EUR, PLANS, fee, worth
>>> p = Purse(3, EUR)
>>> p.total()
600
>>> worth(2, EUR)
400
>>> fee(PLANS['slow'])
5
"""


def make_constant_repo(root: Path) -> Path:
    """A README whose calls pass module-level constants: ``EUR`` (a ``Coin`` the module
    holds) and ``PLANS['slow']`` (plain data)."""
    return make_package_repo(
        root, "constpack", "constpack", CONSTANT_MODULE, files={"README.md": CONSTANT_README}
    )
