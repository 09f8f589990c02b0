"""The meta-server on stdio, answering lines that are not JSON-RPC messages.

The MCP SDK's stdio reader (``mcp.server.stdio.stdio_server``) turns a line it cannot parse
into an exception on the read stream, and the serving loop drops it: a client that sent a
truncated or absurdly nested request waits forever for an answer. :class:`AnswerBadLines`
sits between the reader and the serving loop, answers those as JSON-RPC 2.0 demands
(:mod:`metaserver.children.bad_lines`), and passes every message on, so the session goes on
with the next line. The reader's stdin is :class:`JudgedStdin`: no line is held past the
bounds of :mod:`metaserver.input_limits`, and lines past them are refused before the SDK
parses them. When stdin and stdout are pipes or sockets, none of this is used: the event loop
reads and writes them itself (:mod:`metaserver.server.stdio_pipes`), with the same answers.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections import deque
from collections.abc import Iterator
from contextvars import Context
from types import TracebackType
from typing import IO, Any, Self

import anyio
import mcp_types
from fastmcp import FastMCP
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from metaserver.children.bad_lines import BoundedLines, error_for, judge
from metaserver.server.eras import Era
from metaserver.server.fast_calls import FastCalls, FastReads, FastRoute, message_sender
from metaserver.server.stdio_pipes import claimed_stdout, is_pipe, serve_pipes

# What the SDK's reader is given in place of a line :func:`judge` refused: no JSON, so the
# reader turns it into an exception, which AnswerBadLines answers with the kept answer.
REFUSED = "\x00refused\n"


class JudgedStdin:
    """The SDK reader's stdin: bounded lines (:class:`BoundedLines`), each judged before the
    SDK parses it; a refused line's answer waits in ``answers`` (in order), and the SDK gets
    :data:`REFUSED` instead. Blank lines are skipped (they are no request)."""

    def __init__(self, source: IO[bytes]) -> None:
        self._lines = BoundedLines(source)
        self.answers: deque[mcp_types.JSONRPCError] = deque()

    def readline(self) -> str:
        while True:
            line = self._lines.readline()
            if not line:
                return ""
            if not line.strip():
                continue
            answer = judge(line)
            if answer is None:
                return line.decode("utf-8", "replace")  # as the SDK's own reader decodes
            self.answers.append(answer)
            return REFUSED


@contextlib.contextmanager
def claimed_stdin() -> Iterator[IO[bytes]]:
    """fd 0 for the transport alone, as the SDK's ``stdio_server`` claims it when it opens
    stdin itself: a private duplicate serves the wire, and fd 0 reads the null device, so
    that tool handlers and children read EOF; fd 0 is restored on exit."""
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: a worker thread may still block on it after the transport ends.
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


logger = logging.getLogger(__name__)


class AnswerBadLines:
    """A read stream that answers the reader's parse failures on ``write`` and yields only
    messages (the rest of the serving loop never sees a failure)."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        write: WriteStream[SessionMessage],
        answers: deque[mcp_types.JSONRPCError] | None = None,
    ) -> None:
        self._inner = inner
        self._write = write
        self._answers: deque[mcp_types.JSONRPCError] = deque() if answers is None else answers

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
        # Every line JudgedStdin passes parses, so a failure is a refused line's, in order.
        answer = self._answers.popleft() if self._answers else error_for(exc)
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


async def serve_streams(
    mcp: FastMCP[Any],
    read_stream: ReadStream[Any],
    write_stream: WriteStream[SessionMessage],
    route: FastRoute | None = None,
) -> None:
    """Serve ``mcp`` on a pair of message streams until the read one ends, answering the
    calls ``route`` claims on the fast path (:class:`FastCalls`); the caller runs ``mcp``'s
    lifespan."""
    messages: ReadStream[Any] = read_stream
    if route is not None:
        era = Era(mcp._mcp_server.server_info_stamp)
        messages = FastReads(messages, FastCalls(route, message_sender(write_stream), era))
    await mcp._mcp_server.run(
        messages, write_stream, mcp._mcp_server.create_initialization_options()
    )


async def run_stdio(mcp: FastMCP[Any], route: FastRoute | None = None) -> None:
    """Serve ``mcp`` on this process's stdin and stdout until stdin ends.

    What ``FastMCP.run_stdio_async`` does (fastmcp/server/mixins/transport.py), with
    :class:`AnswerBadLines` on the read side, and :class:`FastCalls` answering the calls
    ``route`` claims; on pipes, without the SDK's worker threads
    (:func:`~metaserver.server.stdio_pipes.serve_pipes`).
    """
    from fastmcp.server.context import reset_transport, set_transport

    token = set_transport("stdio")
    try:
        if is_pipe(0) and is_pipe(1):
            with claimed_stdin() as source, claimed_stdout() as sink:
                async with mcp._lifespan_manager():
                    await serve_pipes(mcp, route, source, sink)
            return
        with claimed_stdin() as source:
            stdin = JudgedStdin(source)
            async with (
                mcp._lifespan_manager(),
                stdio_server(stdin=anyio.wrap_file(stdin)) as (read_stream, write_stream),  # type: ignore[arg-type]
            ):
                answered = AnswerBadLines(read_stream, write_stream, stdin.answers)
                await serve_streams(mcp, answered, write_stream, route)
    finally:
        reset_transport(token)
