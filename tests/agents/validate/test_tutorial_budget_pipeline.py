"""Tutorials run in the order of what they show until their real validation time is spent;
each one left unrun is listed with the reason (issue 30, "budget, not a count")."""

from __future__ import annotations

from pathlib import Path

import pytest
from budget_fixtures import make_budget_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings, TimeoutSettings


@pytest.mark.integration
async def test_tutorials_past_the_time_budget_are_listed_not_run(tmp_path: Path) -> None:
    repo = make_budget_repo(tmp_path / "slowpack")
    settings = Settings(home=tmp_path / "home", timeouts=TimeoutSettings(tutorials=3))

    report = await convert(str(repo), settings=settings, max_tools=9)

    assert report.status == "success", report.failure
    tools = {t.target: t for t in report.tools}
    # The tour shows three entry points, the most: it runs first, though last but one in
    # path order, and its two runs of 2 s each spend the 3 s.
    tour = tools["tutorials/b_tour.ipynb"]
    assert tour.status == "passed", tour.error
    assert tour.evidence is not None and tour.evidence.check == "notebook-run"
    # The other two are not run: no evidence, and the budget as their reason.
    for target in ("tutorials/c_again.ipynb", "tutorials/a_first.ipynb"):
        assert tools[target].evidence is None
        assert (tools[target].error or "").startswith("over the tutorial time budget (3 s; ")
    skipped = {s.target: s.reason for s in report.notebooks_skipped}
    assert skipped.keys() == {"tutorials/c_again.ipynb", "tutorials/a_first.ipynb"}
    assert skipped["tutorials/a_first.ipynb"].endswith("spent by 1 tutorial before it)")
    assert report.tutorials is not None
    assert report.tutorials.found == 3
    assert report.tutorials.executed == 1
    assert report.tutorials.passed == {"notebook-run": 1}
    assert report.tutorials.skipped == {"over the tutorial time budget": 2}
