"""The model's time in one conversion, bounded by the conversion's own time.

A model may be a thousand times slower on one machine than on another (issue 32: Gemma 3
270M on two shared CPU cores ran 3.4 tokens a second, and a 24 s conversion took 328 s).
So its work gets an *allowance*: ``time_share`` times the seconds the conversion took before
it (fetch, environment, analysis, design), within ``budget_seconds``. With the default share
of 1 the model's work is at most what the deterministic stages before it took, and so a
conversion with the model takes at most about twice as long as without it (validation's
own time aside). The allowance covers every model call of the conversion: the refinement
steps after design and the review calls during validation, which spend what is left.

Inside it, requests are fitted to the time left by the model client (``models/speed.py``):
shorter answers, fewer tools a batch, or no request at all where the least answer cannot
arrive; the report's ``llm`` block says what was skipped and cut.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from metaserver.contracts import LLMUsage
from metaserver.settings import LLMSettings


def allowance(settings: LLMSettings, spent: float) -> float:
    """Seconds the model's work may take in a conversion that took ``spent`` before it."""
    if settings.time_share <= 0:
        return settings.budget_seconds
    return round(min(settings.budget_seconds, settings.time_share * spent), 2)


def deadline(usage: LLMUsage) -> float | None:
    """When (``time.monotonic()``) the model's work must be done: now plus what is left of
    ``usage``'s allowance; None where the conversion set none (its caller bounds it)."""
    if usage.allowance_seconds is None:
        return None
    return time.monotonic() + usage.allowance_seconds - usage.seconds


@contextmanager
def timed(usage: LLMUsage) -> Iterator[None]:
    """Add the block's wall time to ``usage.seconds``: the model's work spends the allowance."""
    started = time.monotonic()
    try:
        yield
    finally:
        usage.seconds = round(usage.seconds + time.monotonic() - started, 2)
