"""write_requests: the model's example requests are checked before they are kept."""

from __future__ import annotations

from llm_server import ScriptedLLM, answer, llm_settings, prompt_tokens, sample_report, sensible

from metaserver.agents.design.specs import design
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.llm.requests import requests_schema, write_requests
from metaserver.contracts import JSON, LLMUsage, ToolSpec
from metaserver.models import model_for


async def with_answer(tools: JSON) -> tuple[list[ToolSpec], list[ToolSpec], LLMUsage, JSON]:
    code = sample_report()
    specs = design(code, 12)
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer({"tools": tools})) as server:
        async with model_for(llm_settings(server.url), "descriptions") as model:
            result = await write_requests(specs, code, model, Ledger(usage))
    return specs, result, usage, server.requests[0]


async def test_valid_requests_are_kept_and_the_prompt_shows_the_tools() -> None:
    specs, result, usage, request = await with_answer(
        [{"target": "pkg:add", "requests": ["add 2 and 3", " sum of\ntwo numbers "]}]
    )
    assert {s.target: s.requests for s in result}["pkg:add"] == [
        "add 2 and 3",
        "sum of two numbers",
    ]
    assert all(s.requests == [] for s in result if s.target != "pkg:add")
    # Only requests change; the prompt carries each tool's name, parameters and examples.
    assert [s.model_copy(update={"requests": []}) for s in result] == specs
    assert usage.contributed == {"requests": 1}
    prompt = str(request)
    assert "pkg:add" in prompt and "example_calls" in prompt


async def test_bad_requests_are_rejected_and_the_tool_keeps_none() -> None:
    for tools in (
        [{"target": "pkg:add", "requests": []}],
        [{"target": "pkg:add", "requests": ["a", "b", "c", "d"]}],
        [{"target": "pkg:add", "requests": ["fine", "   "]}],
        [{"target": "pkg:add", "requests": [42]}],
        [{"target": "os:system", "requests": ["rm everything"]}],
    ):
        specs, result, usage, _ = await with_answer(tools)
        assert result == specs, tools
        assert usage.rejected == 1 and usage.contributed == {}


async def test_the_answer_schema_bounds_each_tools_requests() -> None:
    specs = design(sample_report(), 12)
    schema = requests_schema(specs)
    item = schema["properties"]["tools"]["items"]
    assert item["properties"]["target"]["enum"] == [s.target for s in specs]
    assert item["properties"]["requests"]["maxItems"] == 3


async def test_a_small_context_gets_every_tool_asked_for_in_prompts_that_fit() -> None:
    # Issue 32: requests' 4,482 tokens were sent to a 4k context and refused (HTTP 400).
    long_doc = "Adds the numbers given and returns their sum as an integer. " * 40
    code = sample_report(extra=8)
    code = code.model_copy(
        update={"candidates": [c.model_copy(update={"doc": long_doc}) for c in code.candidates]}
    )
    specs = design(code, 12)
    usage = LLMUsage()
    with ScriptedLLM(sensible(), context=2048) as server:
        async with model_for(llm_settings(server.url), "descriptions") as model:
            result = await write_requests(specs, code, model, Ledger(usage))
    assert usage.failed_calls == 0 and usage.errors == []
    assert all(prompt_tokens(r) + int(r["max_tokens"]) <= 2048 for r in server.requests)
    assert all(s.requests for s in result) and usage.contributed == {"requests": len(specs)}
