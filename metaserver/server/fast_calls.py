"""The stdio fast path of a proxied call: a plain ``tools/call`` of a registered tool is
answered beside FastMCP's dispatch, not through it (issue 31).

Through FastMCP a proxied call crossed the server's middleware chain, its provider lookup,
the tasks extension's interceptor and its result conversion: more CPU in the meta-server
than the generated server spends on the call itself, so the meta-server, not the child, set
the throughput of every client. :class:`FastCalls` sits in the read stream of
:func:`metaserver.server.stdio.run_stdio` (as ``AnswerBadLines`` does); a request that a
:data:`FastRoute` claims is answered by a task of its own, writing its response straight to
the write stream; every other message goes on to FastMCP unchanged.

Only a request whose params are ``name``, ``arguments`` and at most a ``_meta`` holding a
progress token is claimed (FastMCP's client sends one with every call; a proxied tool reports
no progress on either path); anything more (a task, a modern-era protocol version, a trace
context) takes the full path. What the client sees is what the full path answers: the same
validation of the arguments against the registered schema, the same child result, a tool
error as an ``isError`` result with its scrubbed text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Self

import mcp_types
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

logger = logging.getLogger(__name__)

# The answer for a call: the tool's result, or a ToolError whose text the client sees.
FastCall = Callable[[dict[str, Any]], Awaitable[mcp_types.CallToolResult]]
# The fast answer for a tool name and its arguments, or None when the call takes the full
# path (not a proxied tool, or arguments whose error only FastMCP's own validation words).
FastRoute = Callable[[str, Any], FastCall | None]

_PLAIN_PARAMS = frozenset({"name", "arguments", "_meta"})
_PLAIN_META = frozenset({"progressToken"})


def claimed(message: SessionMessage, route: FastRoute) -> tuple[Any, FastCall, Any] | None:
    """(request id, answer, arguments) when ``route`` answers ``message`` on the fast path."""
    request = message.message
    if not isinstance(request, mcp_types.JSONRPCRequest) or request.method != "tools/call":
        return None
    params = request.params
    if not params or not set(params) <= _PLAIN_PARAMS or not isinstance(params.get("name"), str):
        return None
    meta = params.get("_meta", {})
    if not isinstance(meta, dict) or not set(meta) <= _PLAIN_META:
        return None
    arguments = params.get("arguments")
    call = route(params["name"], arguments)
    if call is None:
        return None
    return request.id, call, arguments


def call_result(result: ToolResult) -> mcp_types.CallToolResult:
    """The wire result FastMCP makes of a tool's ``result``."""
    return mcp_types.CallToolResult(
        content=result.content,
        structured_content=result.structured_content,
        _meta=result.meta,  # type: ignore[call-arg]  # the alias of ``meta``
    )


def error_result(message: str) -> mcp_types.CallToolResult:
    """A tool error, as FastMCP answers one (``isError`` and its text)."""
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=message)], is_error=True
    )


class FastCalls:
    """A read stream that answers the calls ``route`` claims and passes on the rest."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        write: WriteStream[SessionMessage],
        route: FastRoute,
    ) -> None:
        self._inner = inner
        self._write = write
        self._route = route
        self._answering: set[asyncio.Task[None]] = set()

    @property
    def last_context(self) -> Any:
        # The serving loop restores the reader's context per message (runner.py reads it).
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not self._took(item):
                return item

    def _took(self, item: SessionMessage | Exception) -> bool:
        if not isinstance(item, SessionMessage):
            return False
        found = claimed(item, self._route)
        if found is None:
            return False
        request_id, call, arguments = found
        task = asyncio.create_task(self._answer(request_id, call, arguments))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)
        return True

    async def _answer(self, request_id: Any, call: FastCall, arguments: Any) -> None:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            result = error_result("invalid arguments: an object is expected")
        else:
            try:
                result = await call(arguments)
            except ToolError as exc:
                result = error_result(str(exc))
            except Exception:
                logger.exception("a proxied call failed")
                result = error_result("the call failed: internal error")
        response = mcp_types.JSONRPCResponse(
            jsonrpc="2.0",
            id=request_id,
            # As the SDK's runner answers a handshake-era request: no resultType (a field of
            # the 2026-07-28 era, whose requests carry _meta and take the full path).
            result=result.model_dump(
                by_alias=True, mode="json", exclude_none=True, exclude={"result_type"}
            ),
        )
        try:
            await self._write.send(SessionMessage(response))
        except Exception as exc:  # the client went away: nobody to answer
            logger.info("could not answer a proxied call: %s", exc)

    async def aclose(self) -> None:
        for task in list(self._answering):
            task.cancel()
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.__anext__()  # StopAsyncIteration at the end of stdin
            if not self._took(item):
                return item

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
