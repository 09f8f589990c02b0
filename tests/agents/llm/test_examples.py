"""add_examples: model arguments are checked against the tool's schema before use."""

from __future__ import annotations

from llm_server import ScriptedLLM, answer, llm_settings, sample_report

from metaserver.agents.design.specs import design
from metaserver.agents.llm.examples import add_examples, arguments_schema
from metaserver.agents.llm.ledger import Ledger
from metaserver.contracts import JSON, LLMUsage, ToolSpec
from metaserver.models import model_for


async def with_answer(arguments: JSON) -> tuple[ToolSpec, ToolSpec, LLMUsage, int]:
    code = sample_report()
    specs = design(code, 12)
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer({"arguments": arguments})) as server:
        async with model_for(llm_settings(server.url), "examples") as model:
            result = await add_examples(specs, code, model, Ledger(usage))
    index = [s.target for s in specs].index("pkg:shout")
    return specs[index], result[index], usage, len(server.requests)


async def test_valid_arguments_become_the_first_example_of_an_undocumented_tool() -> None:
    before, after, usage, calls = await with_answer({"text": "quiet please"})
    assert calls == 1  # only pkg:shout has parameters and no doctest
    assert after.examples[0].origin == "llm"
    assert after.examples[0].arguments == {"text": "quiet please"}
    assert after.examples[1:] == before.examples  # the synthesised one stays as a fallback
    assert usage.contributed == {"examples": 1}


async def test_arguments_the_schema_refuses_are_rejected() -> None:
    for arguments in ({"text": 42}, {}, {"text": "a", "extra": 1}, ["text"]):
        before, after, usage, _ = await with_answer(arguments)
        assert after == before, arguments
        assert usage.rejected == 1 and usage.contributed == {}


async def test_the_answer_schema_is_the_tools_input_schema_closed() -> None:
    spec = design(sample_report(), 12)[0]
    schema = arguments_schema(spec)
    assert schema["required"] == ["arguments"]
    assert schema["properties"]["arguments"]["properties"] == spec.input_schema["properties"]
    assert schema["properties"]["arguments"]["additionalProperties"] is False


async def test_a_schema_echoed_as_a_value_is_no_example() -> None:
    # Issue 32: `{"type": "object"}` passed for a parameter typed `{}` (anything passes it).
    code = sample_report()
    code.candidates[2].parameters[0].json_schema = {}
    specs = design(code, 12)
    usage = LLMUsage()
    echo = answer({"arguments": {"text": {"type": "object"}}})
    with ScriptedLLM(lambda request: echo) as server:
        async with model_for(llm_settings(server.url), "examples") as model:
            result = await add_examples(specs, code, model, Ledger(usage))
    index = [s.target for s in specs].index("pkg:shout")
    assert all(e.origin != "llm" for e in result[index].examples)
    assert usage.rejections == {"schema_echo": 1}
