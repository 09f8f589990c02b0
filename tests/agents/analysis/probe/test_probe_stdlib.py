"""stdlib_value: a standard library value a doc builds, as its codec's JSON and class."""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
from typing import Any

import pytest

from metaserver.agents.analysis.probe.probe_stdlib import stdlib_value

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
