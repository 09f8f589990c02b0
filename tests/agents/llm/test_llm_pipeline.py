"""The issue's "done when", end to end: metaserver.pipeline.convert with and without a model.

Three conversions of the calc fixture run side by side: no model; a sensible scripted model
(selects four functions, held in reserve; renames add, describes all); and a bad one (a 500,
then a timeout on the retry, then malformed JSON). The bad model's conversion must equal the
no-model one.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo
from llm_server import Reply, ScriptedLLM, answer, by_schema, in_turn, llm_settings, sensible

from metaserver.agents.llm.refine import GRACE_SECONDS
from metaserver.contracts import ConversionReport
from metaserver.pipeline import convert
from metaserver.registry import Registry
from metaserver.settings import LLMSettings, Settings

MAX_TOOLS = 4
PICKS = ["add", "slugify", "word_counts", "mean"]


async def run(repo: Path, home: Path, llm: LLMSettings) -> ConversionReport:
    # The replay of generated tests is another issue's gate; it adds time, not coverage here.
    settings = Settings(home=home, llm=llm, run_generated_tests=False)
    return await convert(f"file://{repo}", settings=settings, max_tools=MAX_TOOLS)


def outcome(report: ConversionReport) -> tuple[str, list[tuple[str, str, str]], int]:
    tools = sorted((t.name, t.target, t.status) for t in report.tools)
    return report.status, tools, report.tools_passed


@pytest.mark.integration
async def test_a_model_improves_tools_and_a_bad_model_changes_nothing(tmp_path: Path) -> None:
    # A distribution name no index publishes, so the environment is built from this source.
    repo = make_calc_repo(tmp_path / "calc", name="metaserver-llm-fixture")
    sensible_model = by_schema(
        {},
        default=sensible(
            picks=PICKS,
            renames={"add": "add_integers"},
            descriptions={"add": "Add two integers a and b and return their sum."},
        ),
    )
    bad_model = in_turn(
        Reply(status=500),  # the selection call...
        answer({"targets": []}, delay=5.0),  # ...its retry times out...
        Reply(content="I think the best tools are add and mean"),  # ...descriptions: not JSON
    )
    with ScriptedLLM(sensible_model) as good, ScriptedLLM(bad_model) as bad:
        plain, improved, spoiled = await asyncio.gather(
            run(repo, tmp_path / "plain", LLMSettings()),
            # What the model gives is under test here, not its time (a loaded machine can
            # leave a small local tree's allowance too short for it): budget_seconds alone.
            run(repo, tmp_path / "good", llm_settings(good.url, time_share=0)),
            run(repo, tmp_path / "bad", llm_settings(bad.url, timeout=0.5)),
        )

    assert plain.status == "success" and plain.tools_passed == MAX_TOOLS
    assert plain.llm.calls == 0 and plain.llm.model is None
    assert "llm" not in plain.seconds

    # The sensible model: its name, its description, all validated. Its selection stands in
    # for tools that fail, and none does here: design's tools stay (never worse, issue 32).
    assert improved.status == "success", improved.failure
    renamed = {"add": "add_integers"}
    assert sorted(t.name for t in improved.tools) == sorted(
        renamed.get(t.name, t.name) for t in plain.tools
    )
    assert all(t.status == "passed" for t in improved.tools)
    server = (Path(improved.output_dir or "") / "server.py").read_text()
    assert "Add two integers a and b and return their sum." in server
    tools = json.dumps(json.loads((Path(improved.output_dir or "") / "tools.json").read_text()))
    assert "add_integers" in tools
    # The model's example requests are registered for search; without a model, the
    # deterministic ones (the name with the parameters' names).
    good = Registry(Settings(home=tmp_path / "good").registry_path).get(improved.server)
    assert {t.name: t.requests for t in good.tools}["add_integers"] == ["please add my values"]
    alone = Registry(Settings(home=tmp_path / "plain").registry_path).get(plain.server)
    assert {t.name: t.requests for t in alone.tools}["add"][-1] == "add by a, b"
    assert improved.llm.calls == 3 and improved.llm.failed_calls == 0
    assert improved.llm.contributed == {
        "selected": 2,
        "renamed": 1,
        "described": 4,
        "requests": 4,
    }
    assert improved.llm.tokens_in > 0 and improved.llm.tokens_out > 0
    assert improved.llm.model == "scripted" and "llm" in improved.seconds

    # The bad model: the same conversion as without a model, and the failures counted.
    assert outcome(spoiled) == outcome(plain)
    # Every request sent failed; a later one may not be sent at all: at the speed the bad
    # answers showed, its answer could not arrive within the 0.5 s timeout.
    assert spoiled.llm.failed_calls == spoiled.llm.calls >= 2
    assert spoiled.llm.contributed == {}
    assert any("HTTP 500" in e or "no answer within" in e for e in spoiled.llm.errors)
    assert any("not JSON" in e for e in spoiled.llm.errors)
    assert len(bad.requests) == 1 + spoiled.llm.calls  # and the one calibration request


@pytest.mark.integration
async def test_a_slow_model_gets_its_share_of_the_conversions_time_and_changes_nothing(
    tmp_path: Path,
) -> None:
    # Issue 32: at 3.4 generated tokens a second a 24 s conversion took 328 s. Here the model
    # is as slow, and may take half the time the conversion took before it.
    repo = make_calc_repo(tmp_path / "calc", name="metaserver-llm-fixture")
    with ScriptedLLM(sensible(picks=PICKS), speed=(80.0, 3.0)) as slow:
        plain, slowed = await asyncio.gather(
            run(repo, tmp_path / "plain", LLMSettings()),
            run(repo, tmp_path / "slow", llm_settings(slow.url, timeout=60.0, time_share=0.5)),
        )
    before = sum(slowed.seconds[s] for s in ("fetch", "environment", "analysis", "design"))
    assert slowed.llm.allowance_seconds == pytest.approx(0.5 * before, abs=0.05)
    assert slowed.seconds["llm"] <= slowed.llm.allowance_seconds + GRACE_SECONDS
    assert slowed.llm.seconds <= slowed.llm.allowance_seconds + GRACE_SECONDS
    assert sum(slowed.llm.skipped.values()) >= 1  # said, by kind
    assert slowed.llm.failed_calls == 0
    # Never worse: what the model could not say in time, the deterministic design says.
    assert outcome(slowed) == outcome(plain)
