"""A conversion of an estimator library: construct -> fit -> predict replayed through MCP on
one handle, and a function fed the items of a tuple the README unpacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from estimator_fixtures import make_estimator_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_fit_then_predict_and_unpacked_results(tmp_path: Path) -> None:
    repo = make_estimator_repo(tmp_path / "levelpack")
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # LevelModel(scale=2.0).fit([1, 2, 3]).predict(0.5) -> 4.5: fit returns the model itself,
    # so the chain is the model set up in place; predict runs on the fitted model.
    predict = tools["LevelModel.predict"]
    assert predict.status == "passed", predict.error
    assert predict.evidence is not None and predict.evidence.check == "expected-value"
    proofs = {predict.evidence.result: predict.evidence}
    assert set(proofs) <= {4.5, 16.0}
    steps = [(s.tool, s.arguments, s.chained) for s in predict.evidence.session]
    assert steps in (
        [
            ("level_model_new", {"scale": 2.0}, False),
            ("level_model_fit", {"values": [1, 2, 3]}, False),
        ],
        [("level_model_new", {}, False), ("level_model_fit", {"values": [10, 20]}, False)],
    )

    # head, tail = halves([1, 2, 3, 4]); merge(head, tail, gap=9) -> [1, 2, 9, 3, 4]
    merge = tools["merge"]
    assert merge.status == "passed", merge.error
    assert merge.evidence is not None and merge.evidence.check == "expected-value"
    assert merge.evidence.result == [1, 2, 9, 3, 4]
    assert [(s.tool, s.into, s.part) for s in merge.evidence.session] == [
        ("halves", "head", 0),
        ("halves", "tail", 1),
    ]
    assert merge.evidence.arguments == {"head": [1, 2], "tail": [3, 4], "gap": 9}

    # levels, labels = make_levels(4); LevelModel().fit(levels).spread() -> 9: fit's argument
    # is the first item of the toy dataset, built by a step that feeds the fit step.
    spread = tools["LevelModel.spread"]
    assert spread.status == "passed", spread.error
    assert spread.evidence is not None and spread.evidence.check == "expected-value"
    assert spread.evidence.result == 9
    assert [(s.tool, s.into, s.part, s.feeds) for s in spread.evidence.session] == [
        ("level_model_new", None, None, None),
        ("make_levels", "values", 0, 2),
        ("level_model_fit", None, None, None),
    ]

    # The generated server's own tests replay every session.
    assert report.output_dir is not None
    calls = json.loads((Path(report.output_dir) / "tests" / "validation_calls.json").read_text())
    replayed = {c["tool"]: c["session"] for c in calls}
    assert [s["part"] for s in replayed["merge"]] == [0, 1]
    assert [s["tool"] for s in replayed["level_model_predict"]][-1] == "level_model_fit"
    assert [s["feeds"] for s in replayed["level_model_spread"]] == [None, 2, None]
