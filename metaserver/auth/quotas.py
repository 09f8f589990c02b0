"""Quotas per principal, so that one user's batch cannot starve the rest: conversions at
once, and tool calls per minute.

The conversion quota counts the running conversions a principal started (joining a running
conversion of the same source starts nothing, and is always allowed); it is refused with an
MCP error. The call rate is a sliding window of the last 60 s, refused over HTTP with 429
(:mod:`metaserver.auth.http_quota`). The local user (stdio) has no quota: it is alone.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict, deque

from metaserver.auth.roles import Principal

WINDOW = 60.0
QUOTA = "quota:"
"""How every quota refusal begins (the audit log tells them from errors by it)."""


class QuotaExceeded(Exception):
    """A request over a quota; the message says which and what to do."""

    def __init__(self, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def check_conversions(principal: Principal, running: int, limit: int) -> None:
    """Refuse a new conversion of ``principal``, who runs ``running`` already, over ``limit``
    (0: no limit).

    Raises:
        QuotaExceeded: over the limit.
    """
    if principal.via == "local" or limit == 0 or running < limit:
        return
    raise QuotaExceeded(
        f"{QUOTA} {principal.name} already runs {running} conversions (at most {limit} at "
        "once, auth.conversions_per_principal); wait for one to finish (conversion_status) "
        "or cancel one (cancel_conversion)"
    )


class CallRate:
    """Tool calls per principal in a sliding window of :data:`WINDOW` seconds."""

    def __init__(self, per_minute: int) -> None:
        self._limit = per_minute
        self._calls: defaultdict[str, deque[float]] = defaultdict(deque)

    def take(self, principal: Principal, calls: int = 1, now: float | None = None) -> None:
        """Count ``calls`` more calls of ``principal``, or refuse them all.

        Raises:
            QuotaExceeded: the window holds the limit already; ``retry_after`` says when a
                call is allowed again.
        """
        if self._limit == 0 or principal.via == "local":
            return
        now = time.monotonic() if now is None else now
        window = self._calls[principal.name]
        while window and window[0] <= now - WINDOW:
            window.popleft()
        if len(window) + calls > self._limit:
            retry = window[0] + WINDOW - now if window else WINDOW
            raise QuotaExceeded(
                f"{QUOTA} {principal.name} made {len(window)} tool calls in the last minute "
                f"(at most {self._limit}, auth.calls_per_minute); retry in "
                f"{math.ceil(retry)} s",
                retry_after=retry,
            )
        window.extend([now] * calls)
        if not window:
            del self._calls[principal.name]
