"""A docs page whose code blocks build on each other becomes one workflow tool, proven
against what its ``>>>`` examples show, or against a run made here (issue 30), end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from page_fixtures import make_page_repo

from metaserver.children.oneshot import call_tool
from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_docs_pages_become_session_tools(tmp_path: Path) -> None:
    repo = make_page_repo(tmp_path / "pagecalc")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=12)

    assert report.status == "success", report.failure
    tools = {t.target: t for t in report.tools}
    # The Markdown page: its >>> examples' outputs are the stored outputs a rerun reproduces,
    # on the account its earlier blocks built.
    page = tools["docs/tutorial.md"]
    assert page.status == "passed", page.error
    assert page.evidence is not None and page.evidence.check == "notebook-outputs"
    assert [(p["stored"], p["match"]) for p in page.evidence.compared] == [
        ("220.5", True),
        ("balance 220.5\n", True),
    ]
    # The reST page shows nothing: its first run is the reference, then other numbers.
    usage = tools["docs/guide/usage.rst"]
    assert usage.status == "passed", usage.error
    assert usage.evidence is not None and usage.evidence.check == "notebook-run"
    assert usage.evidence.expected == [{"cell": 1, "stdout": "balance 66.55\n"}]
    assert usage.evidence.other_run is not None and usage.evidence.other_run["passed"]
    # Snippets that share nothing are no tutorial.
    assert "docs/quickstart.md" not in tools
    summary = report.tutorials
    assert summary is not None and summary.found == 2
    assert summary.passed == {"notebook-outputs": 1, "notebook-run": 1}

    # Through the registered, sandboxed server, with a rate of the caller's.
    ok, result = await call_tool(settings, report.server, page.name, {"rate": 0.1})
    assert ok, result
    cells = {c["cell"]: c for c in result["cells"]}
    assert cells[3]["stdout"] == "balance 242.0\n"
