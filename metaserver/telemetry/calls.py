"""A proxied call of a registered tool, traced and measured (the direct tools,
``call_generated`` and the page's try-it form all call through :func:`observed_call`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable

import mcp_types

from metaserver.telemetry.metrics import observe_call
from metaserver.telemetry.tracing import span


async def observed_call(
    server: str, tool: str, call: Awaitable[mcp_types.CallToolResult]
) -> mcp_types.CallToolResult:
    """Await ``call`` (the pool's call of ``tool`` of ``server``) in a ``call`` span, and
    count it by outcome: ``ok``, ``error`` (an error result) or ``exception``."""
    started = time.perf_counter()
    outcome = "exception"
    attributes = {"metaserver.server": server, "metaserver.tool": tool}
    try:
        with span("call", attributes) as current:
            result = await call
            outcome = "error" if result.is_error else "ok"
            current.set_attribute("metaserver.outcome", outcome)
            return result
    finally:
        observe_call(server, tool, outcome, time.perf_counter() - started)
