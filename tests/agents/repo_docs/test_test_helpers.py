"""test_helpers: a suite's assertion helpers written out where its tests call them."""

from __future__ import annotations

import ast
from pathlib import Path

from metaserver.agents.repo_docs.test_helpers import assertion_helpers, inline_helpers
from metaserver.agents.repo_docs.test_sessions import suite_sessions
from metaserver.agents.repo_docs.usage import mine_usage

CONFTEST = '''
def assert_moment(d, year, month, hour=None):
    """Checks a moment's fields."""
    assert year == d.year
    assert month == d.month
    if hour is not None:
        assert hour == d.hour


def assert_close_moment(d, hours):
    assert_allclose(d.hours, hours, rtol=1e-9)


def make_moment(year):
    return clock.moment(year, 1)


def check_twice(d, year):
    assert year == d.year
    print(d)
'''

TESTS = """\
import clock
from conftest import assert_moment


def test_moment():
    assert_moment(clock.moment(2015, 2), 2015, 2)
    later = clock.moment(2016, 3).shift(hours=5)
    assert_moment(later, 2016, 3, hour=5)
    assert_moment(clock.moment(2017, 4), -2017, month=4)
    assert_close_moment(later, 5.0)
"""


def test_a_helper_is_a_function_of_the_suite_that_only_asserts(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "docs.py").write_text("def assert_elsewhere(x):\n    assert x == 1\n")
    # the same name, defined otherwise in another test file: no helper of that name
    (tmp_path / "tests" / "test_a.py").write_text("def clash(x):\n    assert x == 1\n")
    (tmp_path / "tests" / "test_b.py").write_text("def clash(x):\n    assert x == 2\n")
    assert sorted(assertion_helpers(tmp_path)) == ["assert_close_moment", "assert_moment"]


def test_a_call_of_a_helper_becomes_its_assertions_on_the_calls_arguments(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    tree = inline_helpers(ast.parse(TESTS), assertion_helpers(tmp_path))
    lines = ast.unparse(tree).splitlines()
    body = [line.strip() for line in lines[lines.index("def test_moment():") + 1 :]]
    assert body == [
        "d__1 = clock.moment(2015, 2)",  # called once, as the test calls it
        "assert 2015 == d__1.year",
        "assert 2 == d__1.month",  # no hour given: the optional check is left out
        "later = clock.moment(2016, 3).shift(hours=5)",
        "assert 2016 == later.year",
        "assert 3 == later.month",
        "assert 5 == later.hour",
        "d__2 = clock.moment(2017, 4)",
        "assert -2017 == d__2.year",
        "assert 4 == d__2.month",
        "assert_allclose(later.hours, 5.0, rtol=1e-09)",
    ]


def test_the_values_a_helper_asserts_are_the_miners_and_the_sessions(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "tests" / "test_clock.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"moment", "shift"})
    assert [(c.args, c.expected, c.attribute) for c in usage.calls["moment"]][:2] == [
        ([2015, 2], 2015, "year"),
        ([2017, 4], -2017, "year"),
    ]
    assert [(c.kwargs, c.expected, c.attribute) for c in usage.calls["shift"]] == [
        ({"hours": 5}, 2016, "year")
    ]
    sessions = [s for s in suite_sessions(tmp_path) if "d__1" in s]
    (session,) = sessions
    lines = session.splitlines()
    assert lines[lines.index(">>> d__1.year") + 1] == "2015"
    assert lines[lines.index(">>> later.hour") + 1] == "5"
