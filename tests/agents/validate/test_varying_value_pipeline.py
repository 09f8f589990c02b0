"""A value the docs show of a call whose answer changes from run to run (a clock, a counter)
is not compared: the tool passes by no-error, as it did before dates were read; a steady answer
that differs from the docs still fails; through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_checks import converted_with_tests

MODULE = '''\
"""Clock: a fixture with a date that changes each call and a wrong documented value."""

import datetime
import itertools

__all__ = ["today", "tick", "half", "double"]

_TICKS = itertools.count(1)


def today() -> datetime.date:
    """The date now: a clock that moves by the day answers alike twice.

    >>> today()
    datetime.date(2019, 1, 1)
    """
    return datetime.date(2026, 12, 7)


def tick(start: int) -> int:
    """A counter from ``start``.

    >>> tick(10)
    10
    """
    return start + next(_TICKS)


def half(x: float) -> float:
    """Half of ``x``.

    >>> half(3.0)
    1.4
    """
    return x / 2


def double(x: float) -> float:
    """Twice ``x``.

    >>> double(3.0)
    6.0
    """
    return x * 2
'''

TESTS = """\
from clock_lite import half


def test_half():
    assert half(1.0) == 0.5
"""


@pytest.mark.integration
async def test_a_value_that_changes_each_call_is_not_compared(tmp_path: Path) -> None:
    report = await converted_with_tests(tmp_path, "clock_lite", MODULE, TESTS)
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for varying in ("today", "tick"):  # a call given nothing that answers a date; a counter
        tool = tools[varying]
        assert tool.status == "passed" and tool.evidence is not None, tool.error
        assert (tool.evidence.check, tool.evidence.expected) == ("no-error", None)
    # a steady answer is compared: the docstring's 1.4 is wrong, the test's 0.5 proves it
    half = tools["half"]
    assert half.evidence is not None and half.evidence.check == "expected-value"
    assert half.evidence.expected == 0.5
