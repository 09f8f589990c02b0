"""The model's time in a conversion: an allowance from the conversion's own time, every
model call inside it, and the deterministic result wherever the model's answer is skipped
(issue 32: 24 s without a model, 328 s with Gemma 3 270M at 3.4 tokens/s)."""

from __future__ import annotations

import time

from llm_server import ScriptedLLM, failed_add, llm_settings, sample_report, sensible

from metaserver.agents.design.specs import design
from metaserver.agents.llm import llm_diagnose, refine_specs
from metaserver.agents.llm.allowance import allowance
from metaserver.agents.llm.refine import GRACE_SECONDS
from metaserver.contracts import LLMUsage, ToolEvidence, ToolSpec
from metaserver.settings import LLMSettings

SPEC: ToolSpec
FAILED: ToolEvidence
SPEC, FAILED = failed_add()


def test_the_allowance_is_the_time_share_of_the_conversions_own_time_within_the_budget() -> None:
    assert allowance(LLMSettings(), 20.0) == 20.0  # the default share: as long again
    assert allowance(LLMSettings(time_share=0.5), 20.0) == 10.0
    assert allowance(LLMSettings(budget_seconds=60), 200.0) == 60.0
    assert allowance(LLMSettings(time_share=0), 5.0) == 300.0  # budget_seconds alone


async def refine(
    server: ScriptedLLM, allowance_seconds: float, **settings: float
) -> tuple[list[ToolSpec], list[ToolSpec], LLMUsage, float]:
    code = sample_report(extra=20)
    specs = design(code, 12)
    usage = LLMUsage(model="scripted", allowance_seconds=allowance_seconds)
    started = time.monotonic()
    refined = await refine_specs(
        code,
        specs,
        max_tools=12,
        settings=llm_settings(server.url, **{"timeout": 60.0, **settings}),
        usage=usage,
    )
    return specs, refined, usage, time.monotonic() - started


async def test_a_model_too_slow_for_the_allowance_costs_no_more_than_it_and_changes_nothing() -> (
    None
):
    # 3 generated tokens a second (issue 32's 3.4): no answer of use arrives in 3 s.
    with ScriptedLLM(sensible(), speed=(80.0, 3.0)) as server:
        specs, refined, usage, seconds = await refine(server, allowance_seconds=3.0)
    assert seconds < 3.0 + GRACE_SECONDS
    assert refined == specs  # never worse: the deterministic design, unchanged
    assert usage.failed_calls == 0
    assert sum(usage.skipped.values()) >= 1
    assert usage.seconds <= 3.0 + GRACE_SECONDS
    assert usage.tokens_per_second["generated"] < 5


async def test_a_model_fast_enough_answers_inside_the_allowance_and_cuts_what_does_not_fit() -> (
    None
):
    with ScriptedLLM(sensible(), speed=(5000.0, 200.0), slots=2) as server:
        _, _, usage, seconds = await refine(server, allowance_seconds=4.0)
    assert seconds < 4.0 + GRACE_SECONDS
    assert usage.calls >= 1 and usage.contributed  # it still helps
    # What did not fit is said: requests cut to the time left, or not sent.
    assert usage.cut_to_time + sum(usage.skipped.values()) >= 1
    assert usage.tokens_per_second["generated"] > 100


async def test_a_diagnosis_after_the_allowance_is_spent_is_not_asked() -> None:
    usage = LLMUsage(allowance_seconds=5.0, seconds=5.0)  # the refinement steps spent it
    with ScriptedLLM(sensible()) as server:
        diagnosis = await llm_diagnose(FAILED, SPEC, settings=llm_settings(server.url), usage=usage)
    assert diagnosis.kind == "none"  # the catalogue's own repair stays
    assert server.requests == []
    assert usage.skipped == {"tool_diagnosis": 1}
    assert usage.calls == 0 and usage.failed_calls == 0


async def test_a_diagnosis_waits_no_longer_than_the_allowance_has_left() -> None:
    usage = LLMUsage(allowance_seconds=10.0, seconds=8.5)
    with ScriptedLLM(sensible(delay=5.0), reports="none") as server:
        started = time.monotonic()
        diagnosis = await llm_diagnose(
            FAILED, SPEC, settings=llm_settings(server.url, timeout=60.0), usage=usage
        )
    assert diagnosis.kind == "none"
    assert time.monotonic() - started < 2.5
    assert usage.seconds <= 10.0 + 0.5
