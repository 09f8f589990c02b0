"""moments: a date or duration a test compares a result with, as the JSON the answer carries."""

from __future__ import annotations

import ast
from pathlib import Path

from metaserver.agents.repo_docs.moments import datetime_names, moment_json, shown_moment
from metaserver.agents.repo_docs.test_sessions import suite_sessions
from metaserver.agents.repo_docs.usage import mine_usage

TESTS = """\
import datetime as dt
from datetime import datetime, timedelta as span

from feasts import easter, parse, shift


def test_parse():
    assert parse("Aug 29, 1924") == datetime(1924, 8, 29)
    assert easter(2024) == dt.date(2024, 3, 31)
    assert shift(1) == span(hours=1)
    assert parse("A.D. 2001").year == 2001
"""


def expression(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def test_the_names_a_file_imports_from_datetime_say_which_class_a_call_builds() -> None:
    names = datetime_names(ast.parse(TESTS))
    assert names == {
        "datetime": "datetime.datetime",
        "dt": "datetime",
        "span": "datetime.timedelta",
    }
    assert shown_moment(expression("datetime(1924, 8, 29)"), names) == (
        "datetime.datetime(1924, 8, 29)"
    )
    assert moment_json(expression("span(hours=1)"), names) == 3600.0
    # with no import, ``datetime`` is the module, as a repr names it
    bare = datetime_names(ast.parse("x = 1"))
    assert moment_json(expression("datetime.date(2024, 3, 31)"), bare) == "2024-03-31"
    assert moment_json(expression("datetime(1924, 8, 29)"), bare) is None
    assert moment_json(expression("when(1924, 8, 29)"), names) is None


def test_a_test_asserting_a_date_is_a_value_for_usage_and_for_the_probe(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_feasts.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"parse", "easter", "shift"})
    assert [(c.args, c.expected, c.attribute) for c in usage.calls["parse"]] == [
        (["Aug 29, 1924"], "1924-08-29T00:00:00", None),
        (["A.D. 2001"], 2001, "year"),
    ]
    assert [c.expected for c in usage.calls["easter"]] == ["2024-03-31"]
    assert [c.expected for c in usage.calls["shift"]] == [3600.0]
    (session,) = suite_sessions(tmp_path)
    lines = session.splitlines()
    assert lines[lines.index(">>> parse('Aug 29, 1924')") + 1] == "datetime.datetime(1924, 8, 29)"
    assert lines[lines.index(">>> easter(2024)") + 1] == "datetime.date(2024, 3, 31)"
