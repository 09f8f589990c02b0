"""llm_diagnose: one repair from the catalogue, its arguments checked, or kind "none"."""

from __future__ import annotations

import pytest
from llm_server import ScriptedLLM, answer, failed_add, failing, garbage, llm_settings

from metaserver.agents.llm import Diagnosis, llm_diagnose
from metaserver.agents.llm.review import diagnosis_schema
from metaserver.contracts import JSON, REPAIR_KINDS, LLMUsage, ToolEvidence, ToolSpec
from metaserver.settings import LLMSettings

SPEC: ToolSpec
FAILED: ToolEvidence
SPEC, FAILED = failed_add()


def reply(kind: str, **fields: JSON) -> dict[str, JSON]:
    empty: dict[str, JSON] = {
        "arguments": None,
        "requirement": None,
        "timeout_seconds": None,
    }
    return {"kind": kind, "reason": "because", **empty, **fields}


async def diagnose(data: JSON) -> tuple[Diagnosis, LLMUsage, ScriptedLLM]:
    usage = LLMUsage()
    with ScriptedLLM(lambda request: answer(data)) as server:
        diagnosis = await llm_diagnose(FAILED, SPEC, settings=llm_settings(server.url), usage=usage)
    return diagnosis, usage, server


@pytest.mark.parametrize(
    ("data", "field", "value"),
    [
        (reply("next_example", arguments={"a": 1, "b": 5}), "arguments", {"a": 1, "b": 5}),
        (reply("drop"), "reason", "because"),
        (reply("add_dependency", requirement="numpy>=1.26,<3"), "requirement", "numpy>=1.26,<3"),
        (reply("longer_timeout", timeout_seconds=120), "timeout_seconds", 120.0),
    ],
)
async def test_each_repair_kind_with_valid_arguments_is_returned(
    data: dict[str, JSON], field: str, value: JSON
) -> None:
    diagnosis, usage, server = await diagnose(data)
    assert diagnosis.kind == data["kind"]
    assert getattr(diagnosis, field) == value
    assert usage.calls == 1 and usage.contributed == {f"diagnosis_{data['kind']}": 1}
    assert server.requests[0]["model"] == "scripted"
    assert "ZeroDivisionError" in server.requests[0]["messages"][1]["content"]


@pytest.mark.parametrize(
    "data",
    [
        reply("next_example", arguments={"a": "two", "b": 1}),  # schema refuses
        reply("next_example", arguments={"a": 2, "b": 2}),  # the arguments that failed
        reply("add_dependency", requirement="evil @ https://example.invalid/x.whl"),
        reply("add_dependency", requirement="--index-url http://x numpy"),
        reply("use_handle", parameter="a"),  # not a repair anything applies
        reply("longer_timeout", timeout_seconds=100000),
        reply("longer_timeout", timeout_seconds=True),
        reply("rewrite_server"),
        {"kind": "drop", "reason": "   "},
    ],
)
async def test_invalid_diagnoses_are_kind_none(data: dict[str, JSON]) -> None:
    diagnosis, usage, _ = await diagnose(data)
    assert diagnosis.kind == "none"
    assert usage.rejected == 1 and usage.contributed == {}


async def test_a_failing_or_absent_model_is_kind_none() -> None:
    assert (await llm_diagnose(FAILED, SPEC, settings=LLMSettings())).kind == "none"
    for responder in (garbage(), failing(500)):
        usage = LLMUsage()
        with ScriptedLLM(responder) as server:
            settings = llm_settings(server.url, review_model="large")
            diagnosis = await llm_diagnose(FAILED, SPEC, settings=settings, usage=usage)
        assert diagnosis.kind == "none"
        assert usage.failed_calls == 1
        assert server.requests[0]["model"] == "large"


def test_the_schema_offers_exactly_the_catalogue() -> None:
    schema = diagnosis_schema(SPEC)
    kinds = [variant["properties"]["kind"]["const"] for variant in schema["anyOf"]]
    assert tuple(kinds) == REPAIR_KINDS
    next_example = schema["anyOf"][0]["properties"]["arguments"]
    assert next_example["properties"] == SPEC.input_schema["properties"]
