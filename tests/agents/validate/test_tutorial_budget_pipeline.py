"""Tutorials run in the order of what they show until their real validation time is spent;
each one left unrun is listed with the reason (issue 30, "budget, not a count")."""

from __future__ import annotations

from pathlib import Path

import pytest
from budget_fixtures import make_budget_repo, make_waiting_repo

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


@pytest.mark.integration
async def test_a_heavy_tutorial_stops_where_its_other_run_would_not_fit(tmp_path: Path) -> None:
    # The tour runs first (0.2 s a run), then c_again (5 s), then a_first (0.2 s).
    repo = make_waiting_repo(tmp_path / "slowpack", first=0.2, tour=0.2, again=5.0)
    settings = Settings(home=tmp_path / "home", timeouts=TimeoutSettings(tutorials=9))

    report = await convert(str(repo), settings=settings, max_tools=9)

    assert report.status == "success", report.failure
    tools = {t.target: t for t in report.tools}
    # c_again's first run (5 s) shows that its two runs would spend more than a quarter of
    # the 9 s, and its second would not fit in what is left: it stops there, and a_first
    # runs. Before, its second run spent the 9 s and a_first was not run.
    for target in ("tutorials/b_tour.ipynb", "tutorials/a_first.ipynb"):
        light = tools[target]
        assert light.status == "passed", light.error
        assert light.evidence is not None and light.evidence.check == "notebook-run"
    skipped = {s.target: s.reason for s in report.notebooks_skipped}
    assert skipped.keys() == {"tutorials/c_again.ipynb"}
    assert skipped["tutorials/c_again.ipynb"].startswith(
        "over the tutorial time budget (9 s; its first run took 5 s; its 1 other run would "
        "take about 5 s, past the "
    )
    assert report.tutorials is not None
    assert report.tutorials.passed == {"notebook-run": 2}
    assert report.tutorials.skipped == {"over the tutorial time budget": 1}


@pytest.mark.integration
async def test_a_heavy_tutorial_waits_for_the_lighter_ones(tmp_path: Path) -> None:
    # The tour runs first and waits 3 s a run: its two runs are more than a quarter of the
    # 40 s, so after its first it waits for the other two, then goes on from that run.
    repo = make_waiting_repo(tmp_path / "slowpack", first=0.2, tour=3.0, again=0.2)
    settings = Settings(home=tmp_path / "home", timeouts=TimeoutSettings(tutorials=40))

    report = await convert(str(repo), settings=settings, max_tools=9)

    assert report.status == "success", report.failure
    for tool in report.tools:
        if tool.target.endswith(".ipynb"):
            assert tool.status == "passed", (tool.target, tool.error)
            assert tool.evidence is not None and tool.evidence.check == "notebook-run"
            assert tool.evidence.compared  # the resumed tour compared its second run too
    assert report.notebooks_skipped == []
    assert report.tutorials is not None
    assert report.tutorials.passed == {"notebook-run": 3}
