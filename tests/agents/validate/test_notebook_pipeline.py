"""Executed notebooks in a repository become validated tools (issue #14), end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from notebook_fixtures import make_notebook_repo

from metaserver.children.oneshot import call_tool
from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_notebooks_convert_into_verified_tools(tmp_path: Path) -> None:
    repo = make_notebook_repo(tmp_path / "nbcalc")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.name: t for t in report.tools}
    # The notebook that reproduces its stored outputs passes by them, with the pairs kept.
    growth = tools["growth"]
    assert growth.status == "passed", growth.error
    assert growth.target == "tutorials/growth.ipynb"
    assert growth.evidence is not None and growth.evidence.check == "notebook-outputs"
    assert growth.evidence.arguments == {"rate": 0.05, "years": 3, "label": "savings"}
    pairs = [(c["cell"], c["output"], c["match"]) for c in growth.evidence.compared]
    assert pairs == [(2, "stdout", True), (2, "value", True), (3, "value", True)]
    # The one whose stored value its code does not compute is dropped, the difference shown.
    drift = tools["drift"]
    assert drift.status == "dropped"
    assert drift.evidence is not None and drift.evidence.check == "notebook-outputs"
    assert "cell 0 value: stored '7.0', got '6.0'" in (drift.error or "")
    # The ones a sandbox cannot run are skipped with the reason (analysis, not tools).
    assert "fetch" not in tools and "timing" not in tools
    assert {(s.target, s.reason) for s in report.notebooks_skipped} == {
        ("examples/fetch.ipynb", "needs the network (imports requests)"),
        ("examples/timing.ipynb", "cell 0: the cell magic %%time cannot be run"),
    }
    assert report.tools_passed >= 3
    # Each notebook's run time, as the notebook itself measured it.
    assert 0 < report.seconds["notebook:growth"] < report.seconds["validate"]
    assert "notebook:drift" in report.seconds

    # Through the registered, sandboxed server: new parameters, recomputed values.
    ok, result = await call_tool(
        settings, report.server, "growth", {"rate": 0.1, "years": 2, "label": "fund"}
    )
    assert ok, result
    cells = {c["cell"]: c for c in result["cells"]}
    assert cells[2]["stdout"] == "fund 3\n" and cells[2]["value"] == 121.0
    assert cells[3]["value"] == {"first": 100.0, "last": 121.0, "n": 3}
    (written,) = result["files"]
    assert written["path"].endswith("/report.txt") and written["bytes"] == len("fund: 121.00\n")

    # The README and each notebook's text are resources; the tool's notebook has a prompt
    # that names it (read from the manifest the server and the meta-server list from).
    manifest = json.loads((Path(report.output_dir) / "documents.json").read_text())
    uris = [r["uri"] for r in manifest["resources"]]
    assert uris[0] == "doc://nbcalc/readme"
    assert "doc://nbcalc/tutorials/tutorials-growth" in uris
    prompts = {p["name"]: p for p in manifest["prompts"]}
    assert prompts["tutorial-tutorials-growth"]["tools"] == ["growth"]
    assert "`growth`(rate: number = 0.05" in prompts["tutorial-tutorials-growth"]["text"]
