"""Any OpenAI-compatible chat server: vLLM, llama.cpp's server, Ollama, a hosted API.

``POST {base_url}/chat/completions`` with the standard ``response_format`` of type
``json_schema``; vLLM turns that into structured (grammar-constrained) decoding. Transport
failures, 408, 429 and 5xx answers are retried with exponential backoff, each retry logged;
other 4xx answers are not, because asking again would get the same refusal, and neither is a
timeout: a server too slow for one attempt is as slow for the next, and the conversion's
model budget is better spent elsewhere (issue 32: three 60 s attempts of one request).

The client fits the server (``profile.py``): no more requests in flight than the server has
slots, so none waits inside the server against its timeout, and no answer asked for that
the context cannot hold beside its prompt. Given a deadline, it fits the time too
(``speed.py``, ``timing.py``): the server's speed is measured (once by a short calibration
request, then from every answer), an answer is asked for no longer than can arrive in the
time left, the wait no longer than that time, and a request whose least answer cannot arrive
is not sent.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import ssl
import time
from collections.abc import Sequence
from typing import Any

import httpx

from metaserver.contracts import JSON
from metaserver.models.base import ContextBudget, Message, Model, ModelResponse, OutputSchema
from metaserver.models.errors import ModelAPIError, ModelOutputError, ModelTimeout
from metaserver.models.limits import shared_limit
from metaserver.models.profile import ServerProfile, read_profile
from metaserver.models.speed import Speed, measured, record, speed_of
from metaserver.models.timing import calibration, fit_to_time, rate, within_time
from metaserver.models.tokens import estimate_tokens

logger = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 30.0
# Tokens kept free of prompt and answer: the chat template's own, and the estimate's error.
CONTEXT_MARGIN = 64
# The answer's share of a context the server reports: the rest is the prompt's.
ANSWER_SHARE = 0.5
# Fewer answer tokens than this hold no answer an agent can use: not worth a request.
MIN_ANSWER_TOKENS = 32


class OpenAICompatModel(Model):
    """A model served over the OpenAI chat-completions API.

    Args:
        name: the model name the server knows (vLLM: ``--served-model-name``).
        base_url: the API root, such as ``http://vllm:8000/v1``.
        api_key: sent as a bearer token when given.
        timeout: seconds one attempt may take, from sending to the last byte.
        retries: further attempts after a retryable failure.
        retry_backoff: seconds before the first retry, doubled for each next one.
        max_concurrency: requests in flight to this server from this process (at most the
            server's slots, when it reports them).
        max_tokens: the longest answer.
        temperature: sampling temperature (0 makes answers repeatable).
        context_tokens: the model's context; unset reads it from the server.
        server_slots: requests the server serves at once; unset reads it from the server.
    """

    def __init__(
        self,
        name: str,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        retry_backoff: float = 0.5,
        max_concurrency: int = 8,
        max_tokens: int = 2048,
        temperature: float = 0.0,
        context_tokens: int | None = None,
        server_slots: int | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.timeout, self.retries, self.retry_backoff = timeout, retries, retry_backoff
        self.max_concurrency, self.max_tokens = max_concurrency, max_tokens
        self.temperature = temperature
        self.context_tokens, self.server_slots = context_tokens, server_slots
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # The wall-clock limit is enforced per attempt below; httpx's own is a backstop.
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout + 5),
            verify=_tls_context(),
        )

    async def request(
        self,
        messages: Sequence[Message],
        *,
        output: OutputSchema | None = None,
        deadline: float | None = None,
    ) -> ModelResponse:
        profile = await self.profile()
        body = self._body(messages, output, profile)
        least = output.min_tokens if output is not None else MIN_ANSWER_TOKENS
        attempt = 0
        while True:
            try:
                async with self._slot(profile):  # the wait for a slot is not the timeout's
                    if deadline is not None:
                        await self._calibrated(deadline)
                    timed, timeout = body, self.timeout
                    if deadline is not None:
                        timed, timeout = fit_to_time(
                            body,
                            messages,
                            least=least,
                            deadline=deadline,
                            timeout=self.timeout,
                            speed=self.speed(),
                            model=self.name,
                        )
                    cut = timed["max_tokens"] != body["max_tokens"]
                    response = await self._attempt(timed, profile, timeout, cut)
                    return response.model_copy(update={"cut_to_time": cut})
            except ModelAPIError as exc:
                if attempt >= self.retries or not _retryable(exc):
                    raise
                delay = exc.retry_after or self._backoff(attempt)
                attempt += 1
                logger.warning(
                    "llm: %s: retry %d of %d in %.1f s after %s",
                    self.name,
                    attempt,
                    self.retries,
                    delay,
                    exc,
                )
                await asyncio.sleep(delay)

    def _slot(self, profile: ServerProfile) -> asyncio.Semaphore:
        slots = min(self.max_concurrency, profile.slots or self.max_concurrency)
        return shared_limit(self.base_url, slots)

    def speed(self) -> Speed:
        """The server's speed as measured in this process so far."""
        return speed_of(self.base_url)

    async def _calibrated(self, deadline: float) -> None:
        """Measure the server's speed with a short request, where nothing measured it yet.

        Its wait is bounded by the time left: a server that does not answer 16 tokens by the
        deadline is recorded as that slow, and the requests after it are not sent.
        """
        left = deadline - time.monotonic()
        if self.speed().known or self.speed().calibrated or left <= 0:
            return
        self.speed().calibrated = True
        body = calibration(self.name, self.temperature)
        started = time.monotonic()
        try:
            async with asyncio.timeout(min(self.timeout, left)):
                answer = await self._client.post("/chat/completions", json=body)
            payload: Any = answer.json() if answer.status_code == 200 else None
        except (TimeoutError, httpx.TimeoutException):
            # No answer in the time left: as slow as one token in all of it, which no
            # request after it can afford.
            record(self.base_url, Speed(generated_tokens=1, generated_seconds=left))
            payload = None
        except (httpx.HTTPError, ValueError):
            return  # a refusal or a broken server tells no speed; its requests fail alone
        usage = payload.get("usage") if isinstance(payload, dict) else None
        tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
        count = tokens if isinstance(tokens, int) else 0
        record(self.base_url, measured(payload, count, time.monotonic() - started))
        logger.info(
            "llm: %s measured at %s prompt and %s generated tokens/s",
            self.base_url,
            rate(self.speed().prompt_per_second),
            rate(self.speed().generated_per_second),
        )

    async def profile(self) -> ServerProfile:
        """The server's context and slots: the settings' where given, else what it reports."""
        if self.context_tokens is not None and self.server_slots is not None:
            return ServerProfile(self.context_tokens, self.server_slots)
        told = await read_profile(self._client, self.base_url, self.name)
        return ServerProfile(
            context_tokens=self.context_tokens or told.context_tokens,
            slots=self.server_slots or told.slots,
        )

    async def budget(self, deadline: float | None = None) -> ContextBudget:
        profile = await self.profile()
        context = profile.context_tokens
        prompt: int | None = None
        answer = self.max_tokens
        if context is not None:
            answer = min(self.max_tokens, int(context * ANSWER_SHARE))
            prompt = max(context - answer - CONTEXT_MARGIN, 0)
        if deadline is None:
            return ContextBudget(prompt_tokens=prompt, answer_tokens=answer)
        if not (self.speed().known or self.speed().calibrated):
            async with self._slot(profile):  # not waiting for a slot where nothing is to measure
                await self._calibrated(deadline)
        return within_time(ContextBudget(prompt, answer), self.speed(), deadline)

    async def aclose(self) -> None:
        await self._client.aclose()

    def _body(
        self, messages: Sequence[Message], output: OutputSchema | None, profile: ServerProfile
    ) -> dict[str, JSON]:
        max_tokens = self.max_tokens
        if profile.context_tokens is not None:
            # The answer gets what the prompt leaves, so the server never refuses the pair.
            room = profile.context_tokens - estimate_tokens(messages) - CONTEXT_MARGIN
            if room < MIN_ANSWER_TOKENS:
                raise ModelAPIError(
                    self.name,
                    f"the prompt (about {estimate_tokens(messages)} tokens) leaves no room for "
                    f"an answer in the model's context of {profile.context_tokens} tokens",
                    400,
                )
            max_tokens = min(max_tokens, room)
        body: dict[str, JSON] = {
            "model": self.name,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
        }
        if output is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": output.name, "schema": output.json_schema, "strict": True},
            }
        return body

    async def _attempt(
        self,
        body: dict[str, JSON],
        profile: ServerProfile,
        timeout: float,
        cut_to_time: bool = False,
    ) -> ModelResponse:
        started = time.monotonic()
        within = f"{timeout:.1f} s, the model time left" if timeout < self.timeout else None
        try:
            async with asyncio.timeout(timeout):
                answer = await self._client.post("/chat/completions", json=body)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise ModelTimeout(self.name, f"no answer within {within or f'{timeout:g} s'}") from exc
        except httpx.HTTPError as exc:
            raise ModelAPIError(self.name, f"{type(exc).__name__}: {exc}") from exc
        if answer.status_code != 200:
            raise _status_error(self.name, answer, body, profile)
        return self._parse(answer, time.monotonic() - started, profile, body, cut_to_time)

    def _parse(
        self,
        answer: httpx.Response,
        seconds: float,
        profile: ServerProfile,
        body: dict[str, JSON],
        cut_to_time: bool = False,
    ) -> ModelResponse:
        try:
            payload: Any = answer.json()
            choice = payload["choices"][0]
            content = choice["message"]["content"]
            usage = payload.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ModelAPIError(
                self.name, f"not a chat-completions answer: {answer.text[:200]!r}", 200
            ) from exc
        response = ModelResponse(
            text=content if isinstance(content, str) else "",
            model=str(payload.get("model") or self.name),
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            seconds=round(seconds, 3),
        )
        record(self.base_url, measured(payload, response.tokens_out, seconds))
        if choice.get("finish_reason") == "length" or not isinstance(content, str):
            reason = "cut off at max_tokens" if content else "empty"
            context, room = profile.context_tokens, body.get("max_tokens")
            if content and cut_to_time:
                # The answer ran out of what the model time left it: neither context nor limit.
                reason = (
                    f"cut off at the {room} tokens the model time left afforded "
                    f"(prompt {response.tokens_in}, answer {response.tokens_out} tokens)"
                )
            elif content and context is not None and _short(room, self.max_tokens):
                # The answer ran out of what the context left it, not of max_tokens.
                reason = (
                    f"cut off: the context of {context} tokens is full "
                    f"(prompt {response.tokens_in}, answer {response.tokens_out} tokens)"
                )
            error = ModelOutputError(self.name, f"answer {reason}")
            error.tokens_in, error.tokens_out = response.tokens_in, response.tokens_out
            raise error
        return response

    def _backoff(self, attempt: int) -> float:
        # Jitter spreads the retries of many concurrent conversions (not security-relevant).
        base: float = self.retry_backoff * (2**attempt)
        return base * (0.5 + random.random() / 2)  # noqa: S311


def _short(room: JSON, limit: int) -> bool:
    """Whether the answer's room was under the limit (the context left it less)."""
    return isinstance(room, int) and room < limit


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs ~0.1 s; every conversion builds models, so build it once.
    return httpx.create_ssl_context()


def _retryable(error: ModelAPIError) -> bool:
    if isinstance(error, ModelTimeout):
        return False
    return error.status is None or error.status in _RETRY_STATUS


def _status_error(
    name: str, answer: httpx.Response, body: dict[str, JSON], profile: ServerProfile
) -> ModelAPIError:
    try:
        detail = answer.json().get("error", answer.text)
        if isinstance(detail, dict):
            detail = detail.get("message", detail)
    except (ValueError, AttributeError):
        detail = answer.text
    header = answer.headers.get("retry-after", "")
    retry_after = (
        min(float(header), _MAX_RETRY_AFTER) if header.replace(".", "", 1).isdigit() else None
    )
    message = f"HTTP {answer.status_code}: {str(detail)[:200]}"
    if answer.status_code == 400 and "context" in str(detail).lower():
        # Name it for what it is: the prompt and its answer's room exceed the context.
        messages = body.get("messages")
        size = sum(len(str(m)) for m in messages) if isinstance(messages, list) else 0
        told = f" of {profile.context_tokens} tokens" if profile.context_tokens else ""
        message = (
            f"the prompt (about {size // 3} tokens) and its answer do not fit the model's "
            f"context{told}; set METASERVER_LLM__CONTEXT_TOKENS if the server does not report "
            f"it ({message})"
        )
    return ModelAPIError(name, message, answer.status_code, retry_after)
