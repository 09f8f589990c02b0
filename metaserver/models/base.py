"""The one contract every model backend fulfils: an async ``request`` with structured output.

A backend is one module (``openai_compat``, ``vllm_engine``); agents only see :class:`Model`.
Structured output is a JSON schema the backend enforces where it can (OpenAI
``response_format``, vLLM structured outputs); :meth:`Model.request_json` parses the answer
either way, because a server may ignore the schema.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Self

from pydantic import BaseModel, Field

from metaserver.contracts import JSON
from metaserver.models.errors import ModelOutputError
from metaserver.models.speed import Speed


class Message(BaseModel):
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


class OutputSchema(BaseModel):
    """The shape the answer must have: a named JSON schema."""

    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    json_schema: dict[str, JSON]
    # Where the conversion's model time is short, a request that cannot get this many answer
    # tokens in time is not sent (agents/llm/allowance.py); its answer would be cut anyway.
    min_tokens: int = Field(default=32, ge=1)


class ModelResponse(BaseModel):
    """One answer and what it cost."""

    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    # The answer's room was lowered to what the time left affords (its max_tokens).
    cut_to_time: bool = False


@dataclass(frozen=True)
class ContextBudget:
    """Room in one request: the prompt's tokens at most (``None``: no known bound) and the
    answer's, so that both fit the model's context together."""

    prompt_tokens: int | None
    answer_tokens: int
    # The prompt's room was lowered to what the server reads in the time left (not the
    # context's bound): a prompt that does not fit is skipped for time, not refused.
    by_time: bool = False


class Model(ABC):
    """A chat model. Subclasses implement :meth:`request`; everything else is shared.

    Use as an async context manager, so that connections are closed::

        async with OpenAICompatModel(...) as model:
            data, response = await model.request_json(messages, output)
    """

    name: str
    max_tokens: int = 2048

    @abstractmethod
    async def request(
        self,
        messages: Sequence[Message],
        *,
        output: OutputSchema | None = None,
        deadline: float | None = None,
    ) -> ModelResponse:
        """Send ``messages``; return the answer, constrained to ``output`` when given.

        ``deadline`` (``time.monotonic()`` seconds): when the answer must have arrived; a
        backend that measures its speed fits the answer's length and its wait to it.

        Raises:
            ModelAPIError: transport failure or error status after the backend's retries.
            ModelTimeout: no answer within the per-call timeout (or before ``deadline``).
            ModelOutputError: the answer was cut off or empty.
            ModelSkipped: not sent, its least answer could not arrive before ``deadline``.
        """

    async def budget(self, deadline: float | None = None) -> ContextBudget:
        """The room one request has (by ``deadline`` where the backend knows its speed);
        the default knows no context bound and no speed."""
        return ContextBudget(prompt_tokens=None, answer_tokens=self.max_tokens)

    def speed(self) -> Speed | None:
        """The server's speed as measured so far; None where the backend measures none."""
        return None

    async def request_json(
        self, messages: Sequence[Message], output: OutputSchema, deadline: float | None = None
    ) -> tuple[dict[str, JSON], ModelResponse]:
        """Ask for a JSON object of the ``output`` shape and parse it.

        The answer is only parsed here; checking it against the schema is the caller's job,
        because callers accept the valid parts of a partly valid answer.

        Raises:
            ModelOutputError: the answer is not a JSON object (its tokens are on the error).
        """
        response = await self.request(messages, output=output, deadline=deadline)
        try:
            data = json.loads(_strip_fence(response.text))
        except json.JSONDecodeError as exc:
            raise _output_error(self.name, f"answer is not JSON ({exc.msg})", response) from exc
        if not isinstance(data, dict):
            raise _output_error(self.name, "answer is not a JSON object", response)
        return data, response

    async def aclose(self) -> None:  # noqa: B027  (optional: most backends hold nothing)
        """Release connections or engines; the default holds none."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _strip_fence(text: str) -> str:
    # Servers without structured outputs often wrap JSON in a ```json fence.
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```"):
        stripped = stripped.split("\n", 1)[-1].rsplit("```", 1)[0]
    return stripped


def _output_error(name: str, message: str, response: ModelResponse) -> ModelOutputError:
    error = ModelOutputError(name, message)
    error.tokens_in, error.tokens_out = response.tokens_in, response.tokens_out
    return error
