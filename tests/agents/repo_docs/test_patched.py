"""patched: values a test asserts in a world it patched are not the plain call's."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.test_sessions import suite_sessions
from metaserver.agents.repo_docs.usage import mine_usage

TESTS = """\
from datetime import datetime
from unittest import mock

from freezegun import freeze_time

from clock import today, zone


@freeze_time(datetime(2014, 12, 15, 1, 21))
def test_frozen():
    assert today() == datetime(2014, 12, 15)


def test_patched_block():
    with mock.patch.object(zone, "NAME", "UTC"):
        assert zone(1) == "UTC"
    assert zone(2) == "CET"


def test_monkeypatched(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    assert zone(3) == "UTC"


def test_plain():
    assert today(7) == datetime(2024, 1, 7)
"""


def test_values_asserted_under_a_patcher_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clock.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"today", "zone"})
    # the calls still show how the API is called; only their values are not read
    assert [(c.args, c.has_expected) for c in usage.calls["today"]] == [
        ([7], True),
        ([], False),
    ]
    assert [(c.args, c.expected) for c in usage.calls["zone"] if c.has_expected] == [([2], "CET")]
    (session,) = [s for s in suite_sessions(tmp_path) if ">>> today" in s]
    assert ">>> today(7)" in session and ">>> today()" not in session
