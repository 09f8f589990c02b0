"""openai_compat: the real client against the scripted server (no patching of HTTP)."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
from llm_server import Reply, ScriptedLLM, answer

from metaserver.models import (
    Message,
    ModelAPIError,
    ModelOutputError,
    ModelTimeout,
    OutputSchema,
)
from metaserver.models.openai_compat import OpenAICompatModel

MESSAGES = [Message(role="system", content="Be brief."), Message(role="user", content="Hi")]
OUTPUT = OutputSchema(
    name="greeting",
    json_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
)


def model(server: ScriptedLLM, **options: float) -> OpenAICompatModel:
    settings: dict[str, float] = {"retries": 2, "retry_backoff": 0.0, "timeout": 5.0}
    settings.update(options)
    return OpenAICompatModel(
        "small",
        server.url,
        api_key="sk-test",
        timeout=settings["timeout"],
        retries=int(settings["retries"]),
        retry_backoff=settings["retry_backoff"],
        max_concurrency=int(settings.get("max_concurrency", 8)),
    )


async def test_sends_the_standard_structured_output_request_and_counts_tokens() -> None:
    with ScriptedLLM(lambda request: answer({"text": "hello"})) as server:
        async with model(server) as client:
            data, response = await client.request_json(MESSAGES, OUTPUT)
    assert data == {"text": "hello"}
    assert response.tokens_in > 0 and response.tokens_out > 0
    (request,) = server.requests
    assert request["model"] == "small"
    assert request["messages"][1] == {"role": "user", "content": "Hi"}
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "greeting", "schema": OUTPUT.json_schema, "strict": True},
    }
    assert request["temperature"] == 0.0
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


async def test_a_500_is_retried_then_succeeds() -> None:
    replies = iter([Reply(status=500), Reply(status=503), answer({"text": "ok"})])
    with ScriptedLLM(lambda request: next(replies)) as server:
        async with model(server) as client:
            data, _ = await client.request_json(MESSAGES, OUTPUT)
    assert data == {"text": "ok"}
    assert len(server.requests) == 3


async def test_persistent_500s_fail_after_the_retries_with_the_status() -> None:
    with ScriptedLLM(lambda request: Reply(status=500)) as server:
        async with model(server, retries=1) as client:
            with pytest.raises(ModelAPIError) as caught:
                await client.request(MESSAGES)
    assert caught.value.status == 500 and "HTTP 500" in str(caught.value)
    assert caught.value.model_name == "small"
    assert len(server.requests) == 2


async def test_a_client_error_is_not_retried() -> None:
    with ScriptedLLM(lambda request: Reply(status=400)) as server:
        async with model(server) as client:
            with pytest.raises(ModelAPIError) as caught:
                await client.request(MESSAGES)
    assert caught.value.status == 400
    assert len(server.requests) == 1


async def test_retry_after_is_honoured() -> None:
    replies = iter([Reply(status=429, headers={"Retry-After": "0.3"}), answer({"text": "ok"})])
    with ScriptedLLM(lambda request: next(replies)) as server:
        async with model(server) as client:
            started = time.monotonic()
            await client.request(MESSAGES)
    assert time.monotonic() - started >= 0.3


async def test_a_slow_answer_times_out_once_and_is_not_sent_again() -> None:
    with ScriptedLLM(lambda request: answer({"text": "late"}, delay=2.0)) as server:
        async with model(server, timeout=0.2, retries=2) as client:
            started = time.monotonic()
            with pytest.raises(ModelTimeout, match=r"no answer within 0\.2 s"):
                await client.request(MESSAGES)
    assert time.monotonic() - started < 1.5  # one attempt of 0.2 s, not the server's 2 s
    # A server too slow for one attempt is as slow for the next (issue 32: 3 x 60 s).
    assert len(server.requests) == 1


async def test_malformed_json_is_an_output_error_that_still_counts_tokens() -> None:
    with ScriptedLLM(lambda request: Reply(content='{"text": "unterminated')) as server:
        async with model(server) as client:
            with pytest.raises(ModelOutputError, match="not JSON") as caught:
                await client.request_json(MESSAGES, OUTPUT)
    assert caught.value.tokens_in > 0 and caught.value.tokens_out > 0
    assert len(server.requests) == 1  # the same prompt would get the same answer


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(content="[1, 2]"), "not a JSON object"),
        (Reply(content='{"text": "cut', finish_reason="length"), "cut off"),
        (Reply(content=None), "empty"),
    ],
)
async def test_unusable_answers_are_output_errors(reply: Reply, message: str) -> None:
    with ScriptedLLM(lambda request: reply) as server:
        async with model(server) as client:
            with pytest.raises(ModelOutputError, match=message):
                await client.request_json(MESSAGES, OUTPUT)


async def test_a_fenced_answer_is_parsed() -> None:
    fenced = "```json\n" + json.dumps({"text": "fenced"}) + "\n```"
    with ScriptedLLM(lambda request: Reply(content=fenced)) as server:
        async with model(server) as client:
            data, _ = await client.request_json(MESSAGES, OUTPUT)
    assert data == {"text": "fenced"}


async def test_a_body_that_is_not_a_completion_is_an_api_error() -> None:
    with ScriptedLLM(lambda request: Reply(raw="<html>proxy error</html>")) as server:
        async with model(server, retries=0) as client:
            with pytest.raises(ModelAPIError, match="not a chat-completions answer"):
                await client.request(MESSAGES)


async def test_a_server_that_is_down_is_an_api_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = OpenAICompatModel("small", f"http://127.0.0.1:{port}/v1", retries=1, retry_backoff=0)
    async with client:
        with pytest.raises(ModelAPIError, match="ConnectError"):
            await client.request(MESSAGES)


async def test_concurrency_is_limited_per_server_across_model_objects() -> None:
    with ScriptedLLM(lambda request: answer({"text": "ok"}, delay=0.1)) as server:
        first, second = model(server, max_concurrency=2), model(server, max_concurrency=2)
        async with first, second:
            await asyncio.gather(*(m.request(MESSAGES) for m in [first, second] * 4))
    assert len(server.requests) == 8
    assert server.max_in_flight == 2


async def test_a_server_with_four_slots_gets_four_requests_and_none_times_out_queued() -> None:
    # Issue 32: 8 requests sent to 4 slots; the queued ones waited inside the server against
    # their timeout and were cancelled together. Waiting for a slot here does not count.
    with ScriptedLLM(lambda request: answer({"text": "ok"}, delay=0.6), slots=4) as server:
        async with model(server, timeout=1.0, retries=0, max_concurrency=8) as client:
            answers = await asyncio.gather(*(client.request(MESSAGES) for _ in range(12)))
    assert len(answers) == 12 and len(server.requests) == 12
    assert server.max_arrived <= 4  # never more in flight than the server serves


async def test_the_settings_give_the_slots_when_the_server_reports_none() -> None:
    with ScriptedLLM(lambda request: answer({"text": "ok"}, delay=0.2), reports="none") as server:
        client = OpenAICompatModel("small", server.url, timeout=5.0, server_slots=2)
        async with client:
            await asyncio.gather(*(client.request(MESSAGES) for _ in range(6)))
    assert server.max_arrived == 2


async def test_the_answer_is_given_what_the_context_leaves_of_the_prompt() -> None:
    long = [Message(role="user", content="word " * 600)]  # ~1,000 tokens by the estimate
    with ScriptedLLM(lambda request: answer({"text": "ok"}), context=2048) as server:
        async with model(server) as client:
            budget = await client.budget()
            await client.request(long)
    (request,) = server.requests
    assert request["max_tokens"] < 2048 - 900  # not the configured 2,048
    assert budget.answer_tokens == 1024 and budget.prompt_tokens == 2048 - 1024 - 64


async def test_a_context_that_fills_is_named_as_such_not_as_max_tokens() -> None:
    # The prompt leaves a few hundred tokens; the model would write ~500: cut there.
    prompt = [Message(role="user", content="x" * (600 * 3))]
    with ScriptedLLM(lambda request: answer({"text": "y" * 2000}), context=1000) as server:
        async with model(server) as client:
            with pytest.raises(ModelOutputError, match="context of 1000 tokens is full"):
                await client.request(prompt)


async def test_a_prompt_over_the_context_is_not_sent_and_says_so_in_words() -> None:
    prompt = [Message(role="user", content="x" * (2000 * 4))]
    with ScriptedLLM(lambda request: answer({"text": "ok"}), context=1000) as server:
        async with model(server) as client:
            with pytest.raises(ModelAPIError, match="no room for an answer in the model's con"):
                await client.request(prompt)
    assert server.requests == []


async def test_a_server_refusing_the_context_is_named_for_it() -> None:
    # The context is not reported, so the prompt is sent; the server's 400 gets a clear name.
    prompt = [Message(role="user", content="x" * (2000 * 4))]
    with ScriptedLLM(lambda r: answer({"text": "ok"}), context=1000, reports="none") as server:
        async with model(server) as client:
            with pytest.raises(ModelAPIError, match="CONTEXT_TOKENS"):
                await client.request(prompt)
    assert len(server.requests) == 1  # a 400 is not retried


async def test_every_retry_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    replies = iter([Reply(status=503), answer({"text": "ok"})])
    with ScriptedLLM(lambda request: next(replies)) as server:
        async with model(server) as client:
            with caplog.at_level("WARNING", logger="metaserver.models.openai_compat"):
                await client.request(MESSAGES)
    (line,) = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert "retry 1 of 2" in line and "HTTP 503" in line
