"""HTTP request bodies held to the bounds every surface keeps (:mod:`metaserver.input_limits`).

The streamable HTTP transport reads a POST body whole and parses it with no bound of its
own. This ASGI middleware reads at most ``MAX_JSON_BYTES`` of it (a longer body, or a longer
``Content-Length``, gets 413 without being read on), judges it as the stdio transports
judge a line (:func:`metaserver.children.bad_lines.judge`: depth, number length, NaN, an id
that is neither string nor number), answers a refused one with 400 and the JSON-RPC error,
and hands an accepted body on unchanged.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from metaserver.children.bad_lines import PARSE_ERROR, encoded, judge
from metaserver.input_limits import MAX_JSON_BYTES


class BoundedBodies:
    """Bounds and judges the POST bodies of the wrapped app (see the module's docstring)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_JSON_BYTES, rpc_path: str = "/mcp") -> None:
        self.app = app
        self.limit = limit
        # Only the MCP endpoint's bodies are JSON-RPC; the page's (metaserver/web/) are its
        # own JSON, bounded here and judged by its handlers.
        self.rpc_path = rpc_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.limit:
            await _refuse(send, 413, self._too_large())
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _refuse(send, 413, self._too_large())
                return
        rpc = str(scope.get("path", "")).rstrip("/") == self.rpc_path
        answer = judge(bytes(body)) if rpc else None
        if answer is not None:
            await _refuse(send, 400, encoded(answer))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # a disconnect, when the client goes
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    def _too_large(self) -> bytes:
        mib = self.limit // (1024 * 1024)
        error = {"code": PARSE_ERROR, "message": f"Parse error: the body is larger than {mib} MiB"}
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()


async def _refuse(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
