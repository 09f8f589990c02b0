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


async def test_a_slow_answer_times_out_per_attempt() -> None:
    with ScriptedLLM(lambda request: answer({"text": "late"}, delay=2.0)) as server:
        async with model(server, timeout=0.2, retries=1) as client:
            started = time.monotonic()
            with pytest.raises(ModelTimeout, match=r"no answer within 0\.2 s"):
                await client.request(MESSAGES)
    assert time.monotonic() - started < 1.5  # two attempts of 0.2 s, not the server's 2 s
    assert len(server.requests) == 2


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
