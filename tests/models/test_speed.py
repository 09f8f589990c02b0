"""The client fits a deadline at the server's measured speed (issue 32: 3.4 tokens/s).

Against the scripted server made as slow as a model of a given speed, with llama-server's
``timings`` or (reports="none") without them.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from llm_server import ScriptedLLM, answer

from metaserver.models import Message, ModelOutputError, ModelSkipped, ModelTimeout, OutputSchema
from metaserver.models.openai_compat import OpenAICompatModel
from metaserver.models.speed import SAFETY, Speed, measured
from metaserver.models.timing import CALIBRATION_TOKENS

MESSAGES = [Message(role="user", content="Say hello.")]
OUTPUT = OutputSchema(
    name="greeting",
    json_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)


def hello(request: dict[str, object]) -> object:
    return answer({"text": "hello"})


def client(server: ScriptedLLM, timeout: float = 10.0) -> OpenAICompatModel:
    return OpenAICompatModel("small", server.url, timeout=timeout, retries=0)


def calibrations(server: ScriptedLLM) -> list[dict[str, object]]:
    return [r for r in server.requests if "response_format" not in r]


def test_an_answers_speed_is_llama_servers_own_timing_else_its_tokens_over_wall_time() -> None:
    timed = {"prompt_n": 400, "prompt_ms": 2000.0, "predicted_n": 30, "predicted_ms": 3000.0}
    speed = measured({"timings": timed}, 30, 5.0)
    assert speed is not None
    assert speed.prompt_per_second == 200 and speed.generated_per_second == 10
    untimed = measured({"choices": []}, 30, 6.0)
    assert untimed is not None
    assert untimed.prompt_per_second is None and untimed.generated_per_second == 5
    assert measured(None, 0, 1.0) is None
    # 2 s of reading a 400-token prompt at 200/s leave 10 * 0.8 - 2 = 6 s: 60 tokens.
    assert speed.affordable(400, 10.0) == int((10 * SAFETY - 2) * 10)
    assert Speed().affordable(400, 10.0) is None  # unknown: no bound from speed


async def test_one_short_calibration_request_measures_the_server_before_a_deadline() -> None:
    with ScriptedLLM(hello, speed=(1000.0, 50.0)) as server:
        async with client(server) as model:
            for _ in range(2):
                await model.request_json(MESSAGES, OUTPUT, deadline=time.monotonic() + 30)
        speed = model.speed()
    (calibration,) = calibrations(server)  # once per server, not per request
    assert calibration["max_tokens"] == CALIBRATION_TOKENS
    assert speed.generated_per_second == pytest.approx(50)
    assert speed.prompt_per_second == pytest.approx(1000)


async def test_without_a_deadline_nothing_is_calibrated_or_cut() -> None:
    with ScriptedLLM(hello, speed=(1000.0, 50.0)) as server:
        async with client(server) as model:
            _, response = await model.request_json(MESSAGES, OUTPUT)
    assert calibrations(server) == []
    assert server.calls("greeting")[0]["max_tokens"] == model.max_tokens
    assert not response.cut_to_time


async def test_an_answer_is_asked_no_longer_than_can_arrive_in_the_time_left() -> None:
    with ScriptedLLM(hello, speed=(2000.0, 50.0)) as server:
        async with client(server) as model:
            _, response = await model.request_json(
                MESSAGES, OUTPUT, deadline=time.monotonic() + 3.0
            )
    (sent,) = server.calls("greeting")
    # At most 3 s * 0.8 at 50 tokens/s, less the calibration's time: not the 2,048 default.
    assert 32 <= sent["max_tokens"] <= 3 * SAFETY * 50
    assert response.cut_to_time


async def test_a_request_whose_least_answer_cannot_arrive_in_time_is_not_sent() -> None:
    least = OUTPUT.model_copy(update={"min_tokens": 64})
    with ScriptedLLM(hello, speed=(1000.0, 10.0)) as server:
        async with client(server) as model:
            started = time.monotonic()
            with pytest.raises(ModelSkipped, match="fewer than its least 64"):
                await model.request_json(MESSAGES, least, deadline=time.monotonic() + 3.0)
    assert server.calls("greeting") == []  # only the calibration was sent
    assert time.monotonic() - started < 2.0  # it did not wait the time out


async def test_the_wait_for_an_answer_is_at_most_the_time_left() -> None:
    def slow_answers(request: dict[str, object]) -> object:
        # The calibration is answered at once; the request itself would take 5 s.
        return answer({"text": "hello"}, delay=5.0 if "response_format" in request else 0.0)

    with ScriptedLLM(slow_answers, reports="none") as server:  # no timings: wall time
        async with client(server, timeout=30.0) as model:
            started = time.monotonic()
            with pytest.raises(ModelTimeout, match="the model time left"):
                await model.request_json(MESSAGES, OUTPUT, deadline=time.monotonic() + 1.5)
    assert time.monotonic() - started < 2.5


async def test_a_server_that_does_not_answer_the_calibration_in_time_gets_no_request() -> None:
    with ScriptedLLM(lambda request: answer({"text": "hi"}, delay=3.0)) as server:
        async with client(server, timeout=30.0) as model:
            started = time.monotonic()
            with pytest.raises(ModelSkipped):
                await model.request_json(MESSAGES, OUTPUT, deadline=time.monotonic() + 1.0)
    assert server.calls("greeting") == []
    assert time.monotonic() - started < 2.0


async def test_prompt_and_answer_room_shrink_to_what_the_time_left_affords() -> None:
    with ScriptedLLM(hello, speed=(400.0, 20.0), context=4096) as server:
        async with client(server) as model:
            roomy = await model.budget()
            timed = await model.budget(deadline=time.monotonic() + 5.0)
    assert roomy.answer_tokens == 2048 and not roomy.by_time
    # Half of under 5 s each, at 20 generated and 400 read tokens a second, less a safety share.
    assert timed.answer_tokens <= 5 * 0.5 * SAFETY * 20
    assert timed.prompt_tokens is not None and timed.prompt_tokens <= 5 * 0.5 * SAFETY * 400
    assert timed.by_time


async def test_a_measured_server_is_not_waited_for_to_size_a_prompt() -> None:
    def busy_answers(request: dict[str, object]) -> object:
        return answer({"text": "hi"}, delay=2.0 if "response_format" in request else 0.0)

    with ScriptedLLM(busy_answers, slots=1, speed=(1000.0, 100.0)) as server:
        async with client(server) as model:
            await model.budget(deadline=time.monotonic() + 30)  # measures it, once
            in_flight = asyncio.create_task(model.request_json(MESSAGES, OUTPUT))
            await asyncio.sleep(0.3)  # the one slot is taken for 2 s
            started = time.monotonic()
            await model.budget(deadline=time.monotonic() + 30)
            assert time.monotonic() - started < 1.0
            await in_flight


async def test_an_answer_cut_where_the_time_left_ended_it_is_named_for_that() -> None:
    long_answer = answer({"text": "word " * 300})  # about 400 tokens
    with ScriptedLLM(lambda request: long_answer, speed=(2000.0, 50.0), context=4096) as server:
        async with client(server) as model:
            with pytest.raises(ModelOutputError, match="tokens the model time left afforded"):
                await model.request_json(MESSAGES, OUTPUT, deadline=time.monotonic() + 3.0)


async def test_an_answer_is_sized_to_the_calls_timeout_where_that_ends_first() -> None:
    with ScriptedLLM(hello, speed=(2000.0, 50.0)) as server:
        async with client(server, timeout=2.0) as model:
            await model.request_json(MESSAGES, OUTPUT, deadline=time.monotonic() + 100.0)
    (sent,) = server.calls("greeting")
    # 100 s left would afford 4,000 tokens; the 2 s timeout affords 80 at most.
    assert sent["max_tokens"] <= 2 * SAFETY * 50
