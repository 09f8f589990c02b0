"""Tutorials without stored outputs are run to make their reference, and proven against it
(issue 30), end to end: a notebook, a sphinx-gallery script, ../data, a loader's data/ at
the repository's top, numpy's repr, and unseeded randomness."""

from __future__ import annotations

from pathlib import Path

import pytest
from tutorial_fixtures import make_tutorial_repo

from metaserver.children.oneshot import call_tool
from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_tutorials_are_run_to_make_their_reference(tmp_path: Path) -> None:
    repo = make_tutorial_repo(tmp_path / "tutcalc")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=15)

    assert report.status == "success", report.failure
    tools = {t.name: t for t in report.tools}
    # An unexecuted notebook: its first run is the reference, the second reproduces it, a
    # third with other numbers shows the same kinds of outputs.
    savings = tools["savings"]
    assert savings.status == "passed", savings.error
    assert savings.evidence is not None and savings.evidence.check == "notebook-run"
    assert savings.evidence.expected == [{"cell": 2, "stdout": "4 values\n", "text": "115.7625"}]
    assert all(pair["match"] for pair in savings.evidence.compared)
    assert savings.evidence.other_run == {
        "arguments": {"rate": 0.055, "years": 4},
        "passed": True,
        "differences": [],
    }
    # A sphinx-gallery script: its literals are parameters, the figure it saved an output.
    plot = tools["plot_growth"]
    assert plot.status == "passed", plot.error
    assert plot.target == "examples/plot_growth.py"
    assert plot.evidence is not None and plot.evidence.check == "notebook-run"
    assert plot.evidence.arguments == {"years": 4, "rate": 0.1}
    saved = [p for p in plot.evidence.compared if p["output"] == "saved growth.png"]
    assert len(saved) == 1 and saved[0]["match"] and isinstance(saved[0]["stored"], str)
    # A tutorial reading ../data finds the repository's file where it lies.
    reading = tools["reading"]
    assert reading.status == "passed", reading.error
    assert reading.evidence is not None
    assert reading.evidence.expected == [{"cell": 1, "text": "[200.0, 220.0, 242.0]"}]
    # A loader reading data/rates.txt where the tutorial runs finds the file the repository
    # ships in its top data/ folder (not beside tutorials/plot_rates.py).
    rates = tools["plot_rates"]
    assert rates.status == "passed", rates.error
    assert rates.evidence is not None and rates.evidence.check == "notebook-run"
    assert rates.evidence.expected == [{"cell": 1, "stdout": "0.75\n"}]
    # A stored output that differs only in numpy's repr reproduces.
    steps = tools["steps"]
    assert steps.status == "passed", steps.error
    assert steps.evidence is not None and steps.evidence.check == "notebook-outputs"
    (pair,) = steps.evidence.compared
    assert (pair["stored"], pair["rerun"], pair["match"]) == (
        "[9, -1, 3, 1]",
        "array([9, -1, 3, 1])",
        True,
    )
    # Unseeded randomness: reported, not passed.
    sampling = tools["sampling"]
    assert sampling.status != "passed"
    assert sampling.evidence is not None and sampling.evidence.unseeded
    assert (sampling.error or "").startswith("unseeded randomness: two runs")
    # Counted apart in the report.
    summary = report.tutorials
    assert summary is not None
    assert (summary.found, summary.tools, summary.stored, summary.executed) == (6, 6, 1, 5)
    assert summary.passed == {"notebook-run": 4, "notebook-outputs": 1}
    assert summary.unseeded == ["sampling"]
    assert report.notebooks_skipped == []  # all six fit the budget and the tools' share
    assert report.seconds["notebook:savings"] > 0

    # Through the registered, sandboxed server: the data file is read-only, new numbers.
    ok, result = await call_tool(settings, report.server, "plot_growth", {"years": 2, "rate": 0.5})
    assert ok, result
    cells = {c["cell"]: c for c in result["cells"]}
    assert cells[1]["stdout"] == "[100.0, 150.0, 225.0]\n"
    (chart,) = result["files"]
    assert chart["path"].endswith("/growth.png") and isinstance(chart["hash"], str)
