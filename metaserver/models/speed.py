"""How fast a model server reads prompts and writes answers, as measured from its answers.

A conversion gives the model a bounded time (``agents/llm/allowance.py``); what fits in it
depends on the server's speed, which varies a thousandfold between vLLM on a GPU and a small
model on two shared CPU cores (issue 32: 80 prompt and 3.4 generated tokens a second, where
nine of twelve requests ran into their 60 s timeout). The speed is read from each answer:

- llama.cpp's ``llama-server`` times both phases itself (the answer's ``timings``:
  ``prompt_n``, ``prompt_ms``, ``predicted_n``, ``predicted_ms``);
- any other server gives the answer's tokens over the wall time, which charges the prompt's
  reading to the writing: slower than true, so what is planned on it errs towards fitting.

Kept per server and process, as totals (a rate over everything measured), like the server's
profile; ``forget_speeds`` drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# A share of the time left kept free of planned work: the estimate's error, the client's own.
SAFETY = 0.8


@dataclass
class Speed:
    """Tokens and seconds measured so far on one server, per phase."""

    prompt_tokens: float = 0.0
    prompt_seconds: float = 0.0
    generated_tokens: float = 0.0
    generated_seconds: float = 0.0
    calibrated: bool = False  # a calibration request was sent (once per server and process)

    @property
    def known(self) -> bool:
        return self.generated_seconds > 0 and self.generated_tokens > 0

    @property
    def prompt_per_second(self) -> float | None:
        """Prompt tokens read a second; None where the server did not time the phase apart."""
        if self.prompt_seconds <= 0 or self.prompt_tokens <= 0:
            return None
        return self.prompt_tokens / self.prompt_seconds

    @property
    def generated_per_second(self) -> float | None:
        return self.generated_tokens / self.generated_seconds if self.known else None

    def seconds(self, prompt_tokens: int, answer_tokens: int) -> float:
        """Seconds a request of ``prompt_tokens`` and an answer of ``answer_tokens`` takes."""
        reading = prompt_tokens / rate if (rate := self.prompt_per_second) else 0.0
        writing = answer_tokens / rate if (rate := self.generated_per_second) else 0.0
        return reading + writing

    def affordable(self, prompt_tokens: int, seconds: float) -> int | None:
        """Answer tokens that arrive within ``seconds`` (a safety share kept free) after a
        prompt of ``prompt_tokens``; None while the speed is unknown."""
        rate = self.generated_per_second
        if rate is None:
            return None
        left = seconds * SAFETY - self.seconds(prompt_tokens, 0)
        return max(int(left * rate), 0)

    def add(self, other: Speed) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.prompt_seconds += other.prompt_seconds
        self.generated_tokens += other.generated_tokens
        self.generated_seconds += other.generated_seconds


def measured(payload: Any, tokens_out: int, seconds: float) -> Speed | None:
    """The speed one answer shows: the server's own ``timings`` where it gives them, else
    ``tokens_out`` over ``seconds``; None when it shows nothing (no tokens)."""
    timings = payload.get("timings") if isinstance(payload, dict) else None
    if isinstance(timings, dict):
        keys = ("prompt_n", "prompt_ms", "predicted_n", "predicted_ms")
        raw = [timings.get(k) for k in keys]
        values = [float(v) for v in raw if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(values) == len(keys):
            prompt_n, prompt_ms, predicted_n, predicted_ms = values
            if predicted_n > 0 and predicted_ms > 0:
                return Speed(prompt_n, prompt_ms / 1000, predicted_n, predicted_ms / 1000)
    if tokens_out > 0 and seconds > 0:
        return Speed(generated_tokens=tokens_out, generated_seconds=seconds)
    return None


_SPEEDS: dict[str, Speed] = {}


def speed_of(server: str) -> Speed:
    """What was measured of ``server`` in this process (unknown: an empty :class:`Speed`)."""
    return _SPEEDS.setdefault(server, Speed())


def record(server: str, speed: Speed | None) -> None:
    if speed is not None:
        speed_of(server).add(speed)


def forget_speeds() -> None:
    """Drop what was measured (tests start servers on reused ports)."""
    _SPEEDS.clear()
