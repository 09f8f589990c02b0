"""The stdio fast path of a proxied call: a plain ``tools/call`` of a registered tool is
answered beside FastMCP's dispatch, not through it (issue 31).

Through FastMCP a proxied call crossed the server's middleware chain, its provider lookup,
the tasks extension's interceptor and its result conversion: more CPU in the meta-server
than the generated server spends on the call itself, so the meta-server, not the child, set
the throughput of every client. :class:`FastCalls` sits in the read stream of
:func:`metaserver.server.stdio.run_stdio` (as ``AnswerBadLines`` does); a request that a
:data:`FastRoute` claims is answered by a task of its own, writing its response straight to
the write stream; every other message goes on to FastMCP unchanged.

Only a request whose params are ``name``, ``arguments`` and at most a ``_meta`` that the full
path would serve as a plain call is claimed: in the connection's protocol era
(:mod:`metaserver.server.eras`: the SDK's own client opens the 2026-07-28 one), with the
era's envelope, a progress token and a W3C trace context, which is continued into the
answer's ``call`` span; anything more (a task, an extension's key, the other era's envelope)
takes the full path. What the client sees is what the full path answers: the same validation
of the arguments against the registered schema, the same child result shaped for the era, a
tool error as an ``isError`` result with its scrubbed text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self

import mcp_types
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace

from metaserver.server.eras import Era

logger = logging.getLogger(__name__)

# The answer for a call: the tool's result, or a ToolError whose text the client sees.
FastCall = Callable[[dict[str, Any]], Awaitable[mcp_types.CallToolResult]]
# The fast answer for a tool name and its arguments, or None when the call takes the full
# path (not a proxied tool, or arguments whose error only FastMCP's own validation words).
FastRoute = Callable[[str, Any], FastCall | None]
# Writes the response to request id with this result (a dict dumped by alias) to the client.
SendAnswer = Callable[[Any, dict[str, Any]], Awaitable[None]]

_PLAIN_PARAMS = frozenset({"name", "arguments", "_meta"})


class Claim:
    """A request the fast path answers: its id, answer, arguments, protocol version and the
    client's trace context (None when it sent none)."""

    __slots__ = ("arguments", "call", "parent", "request_id", "version")

    def __init__(
        self,
        request_id: Any,
        call: FastCall,
        arguments: Any,
        version: str,
        parent: otel_context.Context | None,
    ) -> None:
        self.request_id, self.call, self.arguments = request_id, call, arguments
        self.version, self.parent = version, parent


def claimed(message: SessionMessage, route: FastRoute, era: Era) -> Claim | None:
    """The claim when ``route`` answers ``message`` on the fast path of a connection in
    ``era``; None when the full path takes it."""
    request = message.message
    if not isinstance(request, mcp_types.JSONRPCRequest) or request.method != "tools/call":
        return None
    params = request.params
    if not params or not set(params) <= _PLAIN_PARAMS or not isinstance(params.get("name"), str):
        return None
    version = era.plain_version(params)
    if version is None:
        return None
    arguments = params.get("arguments")
    call = route(params["name"], arguments)
    if call is None:
        return None
    return Claim(request.id, call, arguments, version, trace_parent(params.get("_meta")))


def trace_parent(meta: Mapping[str, Any] | None) -> otel_context.Context | None:
    """The client's trace context in a request's ``_meta`` (W3C ``traceparent``), as the
    SDK's server span reads it on the full path; None when it carries no valid one."""
    if not meta or "traceparent" not in meta:
        return None
    try:
        parent = propagate.extract(meta)
    except (TypeError, ValueError):
        return None
    return parent if trace.get_current_span(parent).get_span_context().is_valid else None


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
    """Answers the calls ``route`` claims, each in a task of its own, through ``send``."""

    def __init__(self, route: FastRoute, send: SendAnswer, era: Era) -> None:
        self._route = route
        self._send = send
        self.era = era
        self._answering: set[asyncio.Task[None]] = set()

    def took(self, item: SessionMessage | Exception) -> bool:
        """Whether ``item`` is claimed (its answer is under way); a request passed on to
        FastMCP's loop is recorded in :attr:`era`."""
        if not isinstance(item, SessionMessage):
            return False
        found = claimed(item, self._route, self.era)
        if found is None:
            request = item.message
            if isinstance(request, mcp_types.JSONRPCRequest):
                self.era.saw(request.method, request.params)
            return False
        task = asyncio.create_task(self._answer(found))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)
        return True

    async def _answer(self, claim: Claim) -> None:
        token = otel_context.attach(claim.parent) if claim.parent is not None else None
        try:
            result = await _result(claim)
        finally:
            if token is not None:
                otel_context.detach(token)
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            await self._send(claim.request_id, self.era.wire_result(claim.version, dumped))
        except Exception as exc:  # the client went away: nobody to answer
            logger.info("could not answer a proxied call: %s", exc)

    def close(self) -> None:
        """Cancel the answers under way (the transport ends)."""
        for task in list(self._answering):
            task.cancel()


async def _result(claim: Claim) -> mcp_types.CallToolResult:
    arguments = {} if claim.arguments is None else claim.arguments
    if not isinstance(arguments, dict):
        return error_result("invalid arguments: an object is expected")
    try:
        return await claim.call(arguments)
    except ToolError as exc:
        return error_result(str(exc))
    except Exception:
        logger.exception("a proxied call failed")
        return error_result("the call failed: internal error")


class FastReads:
    """A read stream of messages whose calls ``fast`` claims are answered beside FastMCP's
    loop, which gets every other message unchanged (for transports that hand over messages,
    not lines: :func:`metaserver.server.stdio.serve_streams`)."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], fast: FastCalls) -> None:
        self._inner = inner
        self._fast = fast

    @property
    def last_context(self) -> Any:
        # The serving loop restores the reader's context per message (runner.py reads it).
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not self._fast.took(item):
                return item

    async def aclose(self) -> None:
        self._fast.close()
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.__anext__()  # StopAsyncIteration at the end of stdin
            if not self._fast.took(item):
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


def message_sender(write: WriteStream[SessionMessage]) -> SendAnswer:
    """A :data:`SendAnswer` that hands each answer to ``write`` as a response message."""

    async def send(request_id: Any, result: dict[str, Any]) -> None:
        response = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)
        await write.send(SessionMessage(response))

    return send
