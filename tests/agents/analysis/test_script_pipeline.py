"""A script-only repository (no pyproject, no package) converts into script tools (issue #4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from script_fixtures import make_script_repo

from metaserver.children.oneshot import call_tool
from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_script_only_repository_converts(tmp_path: Path) -> None:
    repo = make_script_repo(tmp_path / "wordtools")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    assert report.environment.strategy == "requirements+path"
    tools = {t.name: t for t in report.tools}
    assert {"wordcount", "greet", "stats"} <= {n for n, t in tools.items() if t.status == "passed"}
    assert report.tools_passed >= 3

    # The README shows these commands and what they print: compared with stdout.
    wordcount = tools["wordcount"].evidence
    assert wordcount is not None and wordcount.check == "expected-value"
    assert wordcount.arguments == {"lower": True, "top": 2, "source": "b a B c b a"}
    assert wordcount.result == {"exit_code": 0, "stdout": "b 3\na 2\n", "stderr": ""}
    greet = tools["greet"].evidence
    assert greet is not None and greet.check == "expected-value"
    assert greet.result["stdout"] == "Hello, Ada!\nHello, Ada!\n"
    stats = tools["stats"].evidence
    assert stats is not None and stats.result["exit_code"] == 0
    assert stats.result["stdout"] == "2.0\n"  # the median of 1 2 6

    # Through the registered, sandboxed server: a run, and a command line argparse refuses.
    ok, result = await call_tool(settings, report.server, "greet", {"name": "Bo"})
    assert ok and result == {"exit_code": 0, "stdout": "Hello, Bo!\n", "stderr": ""}
    ok, error = await call_tool(settings, report.server, "greet", {"times": 0})
    assert not ok
    assert "exited with code 2" in str(error) and "--times must be at least 1" in str(error)
    ok, result = await call_tool(settings, report.server, "wordcount", {"source": "x y x"})
    assert ok and result["stdout"] == "x 2\ny 1\n"
