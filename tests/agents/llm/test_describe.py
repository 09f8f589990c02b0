"""describe: names and descriptions are checked one by one; a failed check keeps design's."""

from __future__ import annotations

from llm_server import ScriptedLLM, answer, llm_settings, prompt_tokens, sample_report, sensible

from metaserver.agents.design.specs import design
from metaserver.agents.llm.describe import describe
from metaserver.agents.llm.ledger import Ledger
from metaserver.contracts import JSON, LLMUsage, ToolSpec
from metaserver.models import model_for


async def proposals(
    tools: list[dict[str, JSON]],
) -> tuple[list[ToolSpec], list[ToolSpec], LLMUsage]:
    code = sample_report()
    specs = design(code, 12)
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer({"tools": tools})) as server:
        async with model_for(llm_settings(server.url), "descriptions") as model:
            described = await describe(specs, code, model, Ledger(usage))
    return specs, described, usage


def by_target(specs: list[ToolSpec]) -> dict[str, ToolSpec]:
    return {s.target: s for s in specs}


async def test_valid_proposals_are_taken() -> None:
    specs, described, usage = await proposals(
        [{"target": "pkg:add", "name": "add-integers", "description": "  Sum  of\ntwo. "}]
    )
    assert by_target(described)["pkg:add"].name == "add-integers"
    assert by_target(described)["pkg:add"].description == "Sum of two."  # whitespace folded
    assert by_target(described)["pkg:mean"] == by_target(specs)["pkg:mean"]
    assert usage.contributed == {"renamed": 1, "described": 1}


async def test_invalid_names_and_descriptions_fall_back_one_by_one() -> None:
    specs, described, usage = await proposals(
        [
            {"target": "pkg:add", "name": "add two!", "description": "Adds two integers."},
            {"target": "pkg:mean", "name": "average", "description": "x" * 1025},
            {"target": "pkg:shout", "name": "y" * 65, "description": ""},
            {"target": "os:system", "name": "rm", "description": "Not a tool of ours."},
            {"target": "pkg:add", "name": "again", "description": "Repeated target."},
        ]
    )
    tools, before = by_target(described), by_target(specs)
    assert (tools["pkg:add"].name, tools["pkg:add"].description) == ("add", "Adds two integers.")
    assert (tools["pkg:mean"].name, tools["pkg:mean"].description) == (
        "average",
        before["pkg:mean"].description,
    )
    assert tools["pkg:shout"] == before["pkg:shout"]
    assert "os:system" not in tools
    assert usage.rejected == 6  # bad name, long text, long name, empty text, unknown, repeat


async def test_names_must_be_unique_even_after_dashes_become_underscores() -> None:
    _specs, described, usage = await proposals(
        [
            {"target": "pkg:add", "name": "combine-numbers", "description": "Adds."},
            {"target": "pkg:mean", "name": "combine_numbers", "description": "Averages numbers."},
            {"target": "pkg:shout", "name": "ping", "description": "Upper-cases text."},
        ]
    )
    names = [s.name for s in described]
    assert len({n.replace("-", "_") for n in names}) == len(names)
    tools = by_target(described)
    assert tools["pkg:add"].name == "add" and tools["pkg:mean"].name == "mean"
    assert tools["pkg:shout"].name == "shout" and tools["pkg:ping"].name == "ping"
    assert tools["pkg:add"].description == "Adds."  # the description still counts
    assert usage.rejected == 3


async def test_the_schema_constrains_targets_names_and_lengths() -> None:
    code = sample_report()
    specs = design(code, 12)
    with ScriptedLLM(lambda request: answer({"tools": []})) as server:
        async with model_for(llm_settings(server.url), "descriptions") as model:
            await describe(specs, code, model, Ledger(LLMUsage()))
    (request,) = server.requests
    item = request["response_format"]["json_schema"]["schema"]["properties"]["tools"]["items"]
    assert item["properties"]["target"]["enum"] == [s.target for s in specs]
    assert item["properties"]["name"]["pattern"] == "^[a-zA-Z0-9_-]{1,64}$"
    assert item["properties"]["description"]["maxLength"] == 1024
    assert "Add two integers." in request["messages"][1]["content"]


async def test_a_model_that_repeats_itself_until_cut_leaves_the_docstring() -> None:
    # Issue 32: a 270M model's answer, one sentence repeated and cut mid-word at 1,024.
    looping = ("Adds the two integers together. " * 40)[:1021] + "tog"
    specs, described, usage = await proposals(
        [
            {"target": "pkg:add", "name": "add", "description": looping},
            {
                "target": "pkg:mean",
                "name": "mean",
                "description": "The mean of the numbers. It is the sum divided by how"
                " many there are, or an err",
            },
            {"target": "pkg:shout", "name": "shout", "description": "Opens the pod bay doors."},
        ]
    )
    tools, before = by_target(described), by_target(specs)
    for target in ("pkg:add", "pkg:mean", "pkg:shout"):
        assert tools[target].description == before[target].description
    assert usage.rejections == {"repeated": 1, "cut": 1, "ungrounded": 1}


async def test_a_small_context_gets_every_tool_described_in_prompts_that_fit() -> None:
    # Issue 32: descriptions filled a 4k context; the answer was cut ("at max_tokens").
    long_doc = "Adds the numbers given and returns their sum as an integer. " * 40
    code = sample_report(extra=8)
    code = code.model_copy(
        update={"candidates": [c.model_copy(update={"doc": long_doc}) for c in code.candidates]}
    )
    specs = design(code, 12)
    usage = LLMUsage()
    texts = {s.target.rsplit(":", 1)[-1]: "Adds the numbers and returns their sum." for s in specs}
    with ScriptedLLM(sensible(descriptions=texts), context=2048) as server:
        async with model_for(llm_settings(server.url), "descriptions") as model:
            described = await describe(specs, code, model, Ledger(usage))
    assert usage.failed_calls == 0 and usage.errors == []
    assert all(prompt_tokens(r) + int(r["max_tokens"]) <= 2048 for r in server.requests)
    assert all(s.description == "Adds the numbers and returns their sum." for s in described)
