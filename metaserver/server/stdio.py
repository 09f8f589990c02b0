"""The meta-server on stdio, answering lines that are not JSON-RPC messages.

The MCP SDK's stdio reader (``mcp.server.stdio.stdio_server``) turns a line it cannot parse
into an exception on the read stream, and the serving loop drops it: a client that sent a
truncated or absurdly nested request waits forever for an answer. :class:`AnswerBadLines`
sits between the reader and the serving loop, answers those as JSON-RPC 2.0 demands
(:mod:`metaserver.children.bad_lines`), and passes every message on, so the session goes on
with the next line.
"""

from __future__ import annotations

import logging
from contextvars import Context
from types import TracebackType
from typing import Any, Self

from fastmcp import FastMCP
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from metaserver.children.bad_lines import error_for

logger = logging.getLogger(__name__)


class AnswerBadLines:
    """A read stream that answers the reader's parse failures on ``write`` and yields only
    messages (the rest of the serving loop never sees a failure)."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        write: WriteStream[SessionMessage],
    ) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Context | None:
        # The serving loop restores the reader's context per message (runner.py reads it).
        context: Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if isinstance(item, SessionMessage):
                return item
            await self._answer(item)

    async def _answer(self, exc: Exception) -> None:
        answer = error_for(exc)
        if answer is None:
            return
        logger.warning("answered a bad stdio line: %s", answer.error.message)
        await self._write.send(SessionMessage(answer))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.__anext__()  # StopAsyncIteration at the end of stdin
            if isinstance(item, SessionMessage):
                return item
            await self._answer(item)

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


async def run_stdio(mcp: FastMCP[Any]) -> None:
    """Serve ``mcp`` on this process's stdin and stdout until stdin ends.

    What ``FastMCP.run_stdio_async`` does (fastmcp/server/mixins/transport.py), with
    :class:`AnswerBadLines` on the read side.
    """
    from fastmcp.server.context import reset_transport, set_transport

    token = set_transport("stdio")
    try:
        async with mcp._lifespan_manager(), stdio_server() as (read_stream, write_stream):
            await mcp._mcp_server.run(
                AnswerBadLines(read_stream, write_stream),
                write_stream,
                mcp._mcp_server.create_initialization_options(),
            )
    finally:
        reset_transport(token)
