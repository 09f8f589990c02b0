"""stdlib_value: a standard library value a doc builds, as its codec's JSON and class."""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
from pathlib import Path
from typing import Any

import pytest
from probe_modules import probed_package

from metaserver.probe.stdlib_values import stdlib_value

NAMESPACE: dict[str, Any] = {
    "datetime": datetime,
    "date": datetime.date,
    "Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
    "timedelta": datetime.timedelta,
}


def resolve(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return NAMESPACE.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return getattr(NAMESPACE.get(node.value.id), node.attr, None)
    return None


@pytest.mark.parametrize(
    ("source", "json", "cls"),
    [
        ("datetime.datetime(2019, 1, 14, 6, 30)", "2019-01-14T06:30:00", datetime.datetime),
        ("date(2024, 2, 29)", "2024-02-29", datetime.date),
        ('Decimal("1.50")', "1.50", decimal.Decimal),
        ("Fraction(1, 3)", "1/3", fractions.Fraction),
        ("timedelta(hours=2)", 7200.0, datetime.timedelta),
    ],
)
def test_a_value_class_called_with_literals_is_its_json(source: str, json: Any, cls: type) -> None:
    found = stdlib_value(ast.parse(source, mode="eval").body, resolve)
    assert found is not None
    assert (found.json, found.cls) == (json, cls)


@pytest.mark.parametrize(
    "source",
    [
        "date(2024, 2, 30)",  # the class refuses it: no value
        "date(year, 1, 1)",  # not literal
        "Decimal(**parts)",
        "mystery(2024, 1, 1)",  # not a value class of the standard library
        "datetime.now()",  # a class method reads the clock: not a value the doc shows
    ],
)
def test_anything_else_is_no_value(source: str) -> None:
    assert stdlib_value(ast.parse(source, mode="eval").body, resolve) is None


SCHEDULES = '''
"""Schedules: a class method the README calls with a date."""


class Schedule:
    """A schedule."""

    def __init__(self, expr: str) -> None:
        self.expr = expr

    @classmethod
    def match(cls, expr, when):
        """Whether ``when`` falls in the hour ``expr`` names."""
        return when.hour == int(expr.split()[1])
'''

README = """>>> from cronpack import Schedule
>>> from datetime import datetime
>>> Schedule.match('* 6', datetime(2019, 1, 14, 6))
True
"""


def test_a_class_methods_guide_call_with_a_date_is_its_example(tmp_path: Path) -> None:
    report = probed_package(tmp_path, "cronpack", SCHEDULES, [README])
    [match] = [c for c in report.candidates if c.target == "cronpack:Schedule.match"]
    # the class method is bound anew at each access: the README's call is still its own
    [example] = match.examples
    assert (example.arguments, example.expected) == (
        {"expr": "* 6", "when": "2019-01-14T06:00:00"},
        True,
    )
    # typed by the example, leniently: a value without the codec's form passes as JSON
    assert {p.name: p.codec for p in match.parameters} == {"expr": None, "when": "?datetime"}


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        ("datetime.datetime(2003, 9, 25, 10, 49, 41)", "2003-09-25T10:49:41"),
        ("datetime.date(2003, 9, 25)", "2003-09-25"),
        ("datetime.time(8, 21)", "08:21:00"),
        ("datetime.timedelta(days=1, seconds=5)", 86405.0),
        (
            "datetime.datetime(2020, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)",
            "2020-01-01T00:00:00+00:00",
        ),
        (
            "datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone("
            "datetime.timedelta(seconds=-10800)))",
            "2020-01-01T00:00:00-03:00",
        ),
        # UTC by whichever library's name; another zone is no value we can write
        ("datetime.datetime(2003, 9, 25, tzinfo=tzutc())", "2003-09-25T00:00:00+00:00"),
        ("datetime.datetime(2019, 12, 9, 16, 38, tzinfo=UTC)", "2019-12-09T16:38:00+00:00"),
        ("datetime.datetime(2003, 9, 25, tzinfo=tzfile('Europe/Paris'))", None),
        ("datetime.datetime(2003, 13, 1)", None),  # no such month
        ("datetime.timezone.utc", None),
        ("Decimal('1.5')", None),
        ("datetime.datetime.now()", None),
    ],
)
def test_a_moment_shown_as_its_repr_is_the_json_its_answer_carries(
    shown: str, expected: object
) -> None:
    from metaserver.probe.stdlib_values import moment_value

    assert moment_value(shown) == expected


EASTER = '''
"""Feasts."""

import datetime


def easter(year):
    """The date of Easter.

    >>> easter(2024)
    datetime.date(2024, 3, 31)
    """
    return datetime.date(2024, 3, 31) if year == 2024 else datetime.date(year, 4, 1)
'''


def test_a_docstring_showing_a_date_as_its_repr_gives_the_iso_text(tmp_path: Path) -> None:
    report = probed_package(tmp_path, "feasts", EASTER, [])
    [easter] = [c for c in report.candidates if c.target == "feasts:easter"]
    [example] = easter.examples
    assert (example.arguments, example.expected, example.wrapper) == (
        {"year": 2024},
        "2024-03-31",
        None,
    )
