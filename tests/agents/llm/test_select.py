"""select: only targets of the CodeReport, topped up from the deterministic ranking."""

from __future__ import annotations

from llm_server import ScriptedLLM, answer, llm_settings, sample_report

from metaserver.agents.design.specs import design
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.llm.select import select
from metaserver.contracts import JSON, LLMUsage, ToolSpec
from metaserver.models import model_for


async def with_answer(
    data: JSON, max_tools: int = 4
) -> tuple[list[ToolSpec], list[ToolSpec], LLMUsage]:
    code = sample_report(extra=6)
    specs = design(code, max_tools)
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer(data)) as server:
        async with model_for(llm_settings(server.url), "selection") as model:
            chosen = await select(code, specs, max_tools, model, Ledger(usage))
    return specs, chosen, usage


async def test_picks_come_first_and_the_rest_is_topped_up_from_the_ranking() -> None:
    specs, chosen, usage = await with_answer({"targets": ["pkg.more:helper_004", "pkg:ping"]})
    assert [s.target for s in chosen] == [
        "pkg.more:helper_004",
        "pkg:ping",
        *[s.target for s in specs][:2],
    ]
    assert usage.contributed == {"selected": 2}


async def test_targets_outside_the_code_report_are_refused() -> None:
    _specs, chosen, usage = await with_answer(
        {"targets": ["os:system", "pkg:ping", "pkg:ping", 7, "pkg.more:helper_001"]}
    )
    assert [s.target for s in chosen][:2] == ["pkg:ping", "pkg.more:helper_001"]
    assert usage.rejected == 2
    assert all(s.target != "os:system" for s in chosen)


async def test_no_valid_pick_keeps_the_design() -> None:
    for data in ({"targets": ["nope:nothing"]}, {"targets": "pkg:ping"}, {}):
        specs, chosen, _usage = await with_answer(data)
        assert chosen == specs


async def test_too_many_picks_are_cut_to_max_tools() -> None:
    targets = [f"pkg.more:helper_{i:03d}" for i in range(6)]
    _specs, chosen, _usage = await with_answer({"targets": targets}, max_tools=3)
    assert [s.target for s in chosen] == targets[:3]


async def test_a_small_context_gets_the_best_ranked_candidates_that_fit() -> None:
    # Issue 32: 200 candidates (8,115 tokens) were sent to a 4k context and refused (HTTP 400).
    code = sample_report(extra=300)
    specs = design(code, 4)
    usage = LLMUsage()
    reply = answer({"targets": ["pkg:ping"]})
    with ScriptedLLM(lambda request: reply, context=2048) as server:
        async with model_for(llm_settings(server.url), "selection") as model:
            chosen = await select(code, specs, 4, model, Ledger(usage), pool=200)
    (request,) = server.requests
    offered = request["response_format"]["json_schema"]["schema"]["properties"]["targets"]
    assert 4 <= len(offered["items"]["enum"]) < 200  # trimmed, design's own choices kept
    assert [s.target for s in specs] == offered["items"]["enum"][: len(specs)]
    assert usage.failed_calls == 0 and chosen[0].target == "pkg:ping"


async def test_a_designed_tool_the_model_may_not_pick_still_tops_up_its_picks() -> None:
    # Design keeps a tool the model is not offered (here: deprecated after design ranked it;
    # on pint, a utility design chose); topping up the picks with it must not fail the step.
    code = sample_report(extra=6)
    specs = design(code, 4)
    kept = specs[0].target
    code = code.model_copy(
        update={
            "candidates": [
                c.model_copy(update={"deprecated": True}) if c.target == kept else c
                for c in code.candidates
            ]
        }
    )
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer({"targets": ["pkg.more:helper_004"]})) as server:
        async with model_for(llm_settings(server.url), "selection") as model:
            chosen = await select(code, specs, 4, model, Ledger(usage))
    assert chosen[0].target == "pkg.more:helper_004"
    assert usage.contributed == {"selected": 1}


async def test_with_a_reserve_the_picks_stand_in_for_failed_tools_and_displace_none() -> None:
    # Never worse (issue 32): on hmmlearn a pick displaced design's last tool, which passes.
    code = sample_report(extra=6)
    specs = design(code, 4)
    reserve = design(code, 6)[4:]
    usage = LLMUsage()
    picks = {"targets": ["pkg.more:helper_004", "pkg:ping"]}
    with ScriptedLLM(lambda request: answer(picks)) as server:
        async with model_for(llm_settings(server.url), "selection") as model:
            chosen = await select(code, specs, 4, model, Ledger(usage), reserve=reserve)
    assert chosen == specs  # every designed tool stays
    designed = {s.target for s in specs}
    new = [t for t in picks["targets"] if t not in designed]
    assert [s.target for s in reserve][: len(new)] == new  # first in line, in the model's order
    assert len({s.target for s in reserve}) == len(reserve)  # each once
    assert usage.contributed == {"selected": len(new)}
