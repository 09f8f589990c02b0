"""HTTP 429 for a principal over its calls per minute (:class:`~metaserver.auth.quotas.CallRate`).

An ASGI middleware inside the authentication middleware (so the request's principal is
known): it reads the JSON-RPC body of a POST, counts its ``tools/call`` requests, and, over
the quota, answers 429 with ``Retry-After`` and a JSON-RPC error saying why, before the MCP layer
sees the request; the refusal is audited. Bodies are already bounded by
:mod:`metaserver.server.bounded_bodies`, which wraps this one.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metaserver.auth.audit import AuditLog
from metaserver.auth.context import principal_of
from metaserver.auth.quotas import CallRate, QuotaExceeded

RATE_LIMITED = -32029
"""The JSON-RPC error code of a call over the rate (in the range left to servers)."""


def _tool_calls(body: bytes) -> list[dict[str, Any]]:
    try:
        message = json.loads(body)
    except ValueError:
        return []  # not ours to judge: the MCP layer answers a parse error
    messages = message if isinstance(message, list) else [message]
    return [m for m in messages if isinstance(m, dict) and m.get("method") == "tools/call"]


class HttpQuota:
    """Refuses tool calls over a principal's rate with 429 (see the module's docstring)."""

    def __init__(self, app: ASGIApp, rate: CallRate, audit: AuditLog) -> None:
        self.app = app
        self._rate = rate
        self._audit = audit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or not isinstance(user, AuthenticatedUser)
        ):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        calls = _tool_calls(body)
        principal = principal_of(user.access_token)
        try:
            if calls:
                self._rate.take(principal, len(calls))
        except QuotaExceeded as exc:
            for call in calls:
                params = call.get("params")
                params = params if isinstance(params, dict) else {}
                name = params.get("name")
                await asyncio.to_thread(
                    self._audit.record,
                    principal.name,
                    name[:100] if isinstance(name, str) else "?",
                    "refused",
                    arguments=params.get("arguments"),
                    detail="calls per minute",
                )
            await _too_many(send, calls[0].get("id"), str(exc), exc.retry_after)
            return

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        await self.app(scope, replay, send)


async def _too_many(send: Send, request_id: Any, message: str, retry_after: float) -> None:
    # The body is an MCP (JSON-RPC) error too, for clients that read it whatever the status.
    seconds = max(1, math.ceil(retry_after))
    error = {"code": RATE_LIMITED, "message": message, "data": {"retry_after": seconds}}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(seconds).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
