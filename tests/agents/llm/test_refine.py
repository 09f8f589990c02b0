"""refine_specs: what a sensible model adds, and that a bad model leaves the design as it is."""

from __future__ import annotations

import asyncio
import time

import pytest
from llm_server import (
    Reply,
    ScriptedLLM,
    by_schema,
    failing,
    garbage,
    llm_settings,
    nonsense,
    sample_report,
    sensible,
    slow,
)

from metaserver.agents.design.specs import design
from metaserver.agents.llm import refine_specs
from metaserver.contracts import LLMUsage, ToolSpec
from metaserver.settings import LLMSettings


async def refine(
    settings: LLMSettings, max_tools: int = 12, extra: int = 0
) -> tuple[list[ToolSpec], list[ToolSpec], LLMUsage]:
    code = sample_report(extra)
    specs = design(code, max_tools)
    usage = LLMUsage(model=settings.model)
    refined = await refine_specs(code, specs, max_tools=max_tools, settings=settings, usage=usage)
    return specs, refined, usage


async def test_without_a_model_nothing_changes_and_nothing_is_counted() -> None:
    specs, refined, usage = await refine(LLMSettings())
    assert refined == specs
    assert usage == LLMUsage()


async def test_a_sensible_model_renames_describes_and_adds_examples() -> None:
    responder = sensible(renames={"add": "add_integers"}, descriptions={"add": "Sum of a and b."})
    with ScriptedLLM(responder) as server:
        specs, refined, usage = await refine(llm_settings(server.url))
    tools = {s.target: s for s in refined}
    assert tools["pkg:add"].name == "add_integers"
    assert tools["pkg:add"].description == "Sum of a and b."
    # Targets and parameters never change; only the undocumented tool gets an llm example.
    assert [(s.target, s.parameters) for s in refined] == [(s.target, s.parameters) for s in specs]
    assert [e.origin for e in tools["pkg:shout"].examples] == ["llm", "synthesised"]
    assert tools["pkg:shout"].examples[0].arguments == {"text": "hello"}
    assert [e.origin for e in tools["pkg:add"].examples] == ["doctest"]
    assert tools["pkg:ping"].examples == specs[-1].examples  # no parameters: nothing to ask
    assert tools["pkg:add"].requests == ["please add my values"]
    # Four candidates, four tools: no selection call. One description call, one example call,
    # one call for the example requests.
    assert [r["response_format"]["json_schema"]["name"] for r in server.requests] == [
        "tool_descriptions",
        "tool_example",
        "tool_requests",
    ]
    assert usage.calls == 3 and usage.failed_calls == 0 and usage.rejected == 0
    assert usage.tokens_in > 0 and usage.tokens_out > 0
    assert usage.contributed == {"renamed": 1, "described": 4, "examples": 1, "requests": 4}


async def test_selection_chooses_among_all_candidates_and_tops_up() -> None:
    with ScriptedLLM(sensible()) as server:
        specs, refined, usage = await refine(llm_settings(server.url), max_tools=3, extra=10)
    # The scripted model picks the three last-ranked; design had chosen the documented ones.
    assert {s.target for s in specs} == {"pkg:add", "pkg:mean", "pkg:shout"}
    assert [s.target for s in refined] == ["pkg:ping", "pkg.more:helper_009", "pkg.more:helper_008"]
    assert usage.contributed["selected"] == 3
    (selection,) = server.calls("tool_selection")
    enum = selection["response_format"]["json_schema"]["schema"]["properties"]["targets"]
    assert len(enum["items"]["enum"]) == 14 and enum["maxItems"] == 3


async def test_the_selection_pool_bounds_the_prompt() -> None:
    with ScriptedLLM(sensible()) as server:
        await refine(llm_settings(server.url, selection_pool=5), max_tools=3, extra=400)
    (selection,) = server.calls("tool_selection")
    schema = selection["response_format"]["json_schema"]["schema"]
    assert len(schema["properties"]["targets"]["items"]["enum"]) == 5
    assert selection["messages"][1]["content"].count("\n") < 40


BAD_MODELS = {
    "garbage": garbage(),
    "nonsense": nonsense(),
    "500": failing(500),
    "truncated": lambda request: Reply(content='{"tools": [', finish_reason="length"),
}


@pytest.mark.parametrize("kind", sorted(BAD_MODELS))
async def test_a_bad_model_leaves_the_design_and_counts_failures(kind: str) -> None:
    with ScriptedLLM(BAD_MODELS[kind]) as server:
        specs, refined, usage = await refine(llm_settings(server.url), max_tools=3, extra=10)
    assert refined == specs
    assert usage.contributed == {}
    if kind == "nonsense":  # usable JSON, every proposal refused
        assert usage.failed_calls == 0 and usage.rejected > 0
    else:
        assert usage.failed_calls == usage.calls > 0
        assert usage.errors
    # The circuit opens: after max_failures (3) failed calls, no more are made.
    assert usage.calls <= 3 or kind == "nonsense"


async def test_a_slow_model_is_cut_off_by_the_per_call_timeout() -> None:
    with ScriptedLLM(slow(3.0)) as server:
        started = time.monotonic()
        specs, refined, usage = await refine(
            llm_settings(server.url, timeout=0.2, retries=0), max_tools=3, extra=10
        )
    assert refined == specs
    assert usage.failed_calls == 3 and "no answer within 0.2 s" in usage.errors[0]
    assert time.monotonic() - started < 2.5


async def test_the_conversion_budget_bounds_all_model_work() -> None:
    with ScriptedLLM(slow(3.0)) as server:
        started = time.monotonic()
        specs, refined, usage = await refine(
            llm_settings(server.url, timeout=10, budget_seconds=0.3), max_tools=3, extra=10
        )
    assert refined == specs
    assert time.monotonic() - started < 2.0
    assert usage.failed_calls == 1
    assert any("budget" in line for line in usage.errors)


async def test_a_model_that_is_down_costs_little() -> None:
    settings = llm_settings("http://127.0.0.1:9/v1", retries=2, retry_backoff=0.01)
    started = time.monotonic()
    specs, refined, usage = await refine(settings, max_tools=3, extra=10)
    assert refined == specs
    assert usage.failed_calls == 3 and usage.calls == 3
    assert time.monotonic() - started < 2.0


async def test_one_stage_failing_keeps_the_others() -> None:
    responder = by_schema(
        {"tool_selection": failing(500), "tool_example": garbage()},
        default=sensible(renames={"add": "add_integers"}),
    )
    with ScriptedLLM(responder) as server:
        specs, refined, usage = await refine(llm_settings(server.url), max_tools=3, extra=10)
    assert [s.target for s in refined] == [s.target for s in specs]
    assert refined[0].name == "add_integers"
    assert usage.contributed == {"renamed": 1, "described": 3, "requests": 3}
    assert usage.failed_calls == 2  # the selection (after its retry) and the one example


async def test_concurrent_refinements_share_the_concurrency_limit() -> None:
    with ScriptedLLM(slow(0.05)) as server:
        settings = llm_settings(server.url, max_concurrency=3)
        await asyncio.gather(*(refine(settings, max_tools=6, extra=10) for _ in range(4)))
    assert server.max_in_flight <= 3
