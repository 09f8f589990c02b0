"""failed_tool_tests: which tools the generated tests could not replay, read from pytest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from metaserver.agents.validate.selftest import (
    failed_tool_reasons,
    failed_tool_tests,
    selftest_timeout,
)
from metaserver.settings import Settings

TESTS = """
import pytest

CALLS = [{"tool": "table_new"}, {"tool": "table_size"}, {"tool": "count[1]"}]


@pytest.mark.parametrize("call", CALLS, ids=[c["tool"] for c in CALLS])
def test_tool_answers_as_validated(call):
    assert call["tool"] == "table_new", "replay refused: " + call["tool"]
"""


def test_the_tools_whose_replay_failed_are_read_from_pytests_summary(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_tools.py").write_text(TESTS)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        env={**os.environ, "COLUMNS": "400"},  # as run_generated_tests runs them
        capture_output=True,
        text=True,
        cwd=tmp_path / "tests",
        timeout=120,
        check=False,
    )
    assert run.returncode == 1
    # the tests the server's own replay failed, by tool name; the passing one is not there
    assert failed_tool_tests(run.stdout) == {"table_size", "count[1]"}
    assert failed_tool_tests("1 passed in 0.1s") == set()
    # and why each failed, as the conversion reports it for a tool it leaves out
    assert failed_tool_reasons(run.stdout) == {
        "table_size": "AssertionError: replay refused: table_size",
        "count[1]": "AssertionError: replay refused: count[1]",
    }


def test_the_replays_time_grows_with_the_tools(tmp_path: Path) -> None:
    timeouts = Settings(home=tmp_path).timeouts
    ten_calls = timeouts.server_start + 10 * timeouts.tool_call
    assert selftest_timeout(Settings(home=tmp_path), 12) == ten_calls  # as before
    assert selftest_timeout(Settings(home=tmp_path), 30) == ten_calls
    many = selftest_timeout(Settings(home=tmp_path), 55)  # one call's limit per third tool
    assert many == timeouts.server_start + 18 * timeouts.tool_call > ten_calls
