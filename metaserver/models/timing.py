"""Requests fitted to a deadline at a server's measured speed (``speed.py``).

The OpenAI-compatible client (``openai_compat.py``) asks here how long an answer may be and
how long to wait for it, so that a slow model never runs past the conversion's model time
(``agents/llm/allowance.py``; issue 32: nine of twelve requests ran into their 60 s timeout):

- ``within_time``: the prompt's and the answer's room, each on its share of the time left;
- ``fit_to_time``: one request's ``max_tokens`` and timeout, or :class:`ModelSkipped` where
  its least answer cannot arrive;
- ``calibration``: the short request whose timing measures a server nothing measured yet.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from metaserver.contracts import JSON
from metaserver.models.base import ContextBudget, Message
from metaserver.models.errors import ModelSkipped
from metaserver.models.speed import SAFETY, Speed
from metaserver.models.tokens import estimate_tokens

# The calibration request: a short prompt and answer whose timing gives the server's speed
# before the first real request is sized (one per server and process).
CALIBRATION_TOKENS = 16
_CALIBRATION = (
    "Write one short sentence about measuring the speed of a language model server; this "
    "request is only timed, its answer is not read. "
) * 4
# Of a deadline's time left, the share a prompt's reading may plan on; the rest is the answer's.
PROMPT_SHARE = 0.5


def calibration(model: str, temperature: float) -> dict[str, JSON]:
    """The body of the calibration request."""
    return {
        "model": model,
        "messages": [{"role": "user", "content": _CALIBRATION}],
        "max_tokens": CALIBRATION_TOKENS,
        "temperature": temperature,
    }


def within_time(budget: ContextBudget, speed: Speed, deadline: float) -> ContextBudget:
    """``budget`` cut to what arrives by ``deadline`` at ``speed``: the prompt's reading
    and the answer's writing each plan on their share of the time left."""
    left = max(deadline - time.monotonic(), 0.0)
    reading, writing = speed.prompt_per_second, speed.generated_per_second
    prompt, answer = budget.prompt_tokens, budget.answer_tokens
    if writing is not None:
        answer = min(answer, int(left * (1 - PROMPT_SHARE) * SAFETY * writing))
    by_time = False
    if reading is not None:
        readable = int(left * PROMPT_SHARE * SAFETY * reading)
        by_time = prompt is None or readable < prompt
        prompt = readable if prompt is None else min(prompt, readable)
    return ContextBudget(prompt_tokens=prompt, answer_tokens=max(answer, 0), by_time=by_time)


def fit_to_time(
    body: dict[str, JSON],
    messages: Sequence[Message],
    *,
    least: int,
    deadline: float,
    timeout: float,
    speed: Speed,
    model: str,
) -> tuple[dict[str, JSON], float]:
    """``body`` with an answer no longer than arrives by ``deadline`` and within ``timeout``,
    and the attempt's timeout (the per-call one, or the time left where that is shorter).

    Raises:
        ModelSkipped: that time affords fewer answer tokens than ``least``.
    """
    # The answer must arrive within the attempt's own timeout too, not only the deadline
    # (the dev run: answers sized to 100 s left ran into the 60 s timeout).
    window = min(timeout, deadline - time.monotonic())
    affordable = speed.affordable(estimate_tokens(messages), window) if window > 0 else 0
    if affordable is not None and affordable < least:
        raise ModelSkipped(
            model,
            f"not sent: {window:.1f} s afford {affordable} answer tokens at "
            f"{rate(speed.generated_per_second)} tokens/s, fewer than its least {least}",
        )
    room = body.get("max_tokens")
    if affordable is not None and isinstance(room, int) and affordable < room:
        body = {**body, "max_tokens": affordable}
    return body, window


def rate(value: float | None) -> str:
    """Tokens a second as a log line shows them."""
    return "unknown" if value is None else f"{value:.1f}"
