"""The meta-server's stdin and stdout as asyncio pipes: no worker thread per line (issue 31).

The MCP SDK's stdio transport (``mcp.server.stdio.stdio_server``) reads and writes through
anyio's wrapped files: every ``readline``, ``write`` and ``flush`` is a hop to a worker
thread and back, three per call, and at concurrency 10 those hops, not the calls, set the
meta-server's pace. Here, when stdin and stdout are pipes or sockets (as every client that
spawns a server makes them), the event loop reads and writes them itself
(``connect_read_pipe`` / ``connect_write_pipe``):

- one reader task takes each line within the bounds of :mod:`metaserver.input_limits`
  (a longer one is read on in chunks and dropped), answers a line that is no JSON-RPC
  message as :mod:`metaserver.children.bad_lines` says, lets :class:`FastCalls` claim the
  calls of the fast path, and hands every other message to FastMCP's loop on the same kind
  of context-carrying stream the SDK's reader uses;
- every line out, FastMCP's messages and fast answers alike, is one ``write`` of a whole
  line on the loop's thread, so two answers never interleave within a line; a client that
  stops reading holds the writers at ``drain``.

Anything else (a regular file, a terminal) is served by the SDK's transport
(:func:`metaserver.server.stdio.run_stdio` decides).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
from collections.abc import Iterator
from typing import IO, Any

import anyio
import mcp_types
from fastmcp import FastMCP
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from metaserver.children.bad_lines import TOO_LONG, encoded, judged
from metaserver.input_limits import MAX_JSON_BYTES
from metaserver.server.eras import Era
from metaserver.server.fast_calls import FastCalls, FastRoute

# What the reader holds of a line at a time while it looks for the newline.
_CHUNK = 64 * 1024
# How long the last answers may take to reach a client that still reads, at the end.
_FLUSH_GRACE = 5.0


def is_pipe(fd: int) -> bool:
    """Whether ``fd`` is a pipe or a socket: what the event loop can read and write itself
    (a regular file cannot be polled, nor can every character device)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def claimed_stdout() -> Iterator[IO[bytes]]:
    """fd 1 for the transport alone, as the SDK's ``stdio_server`` claims it: a private
    duplicate serves the wire, fd 1 writes to stderr (a stray print of a handler misses the
    wire); fd 1 is restored on exit."""
    private = _private_duplicate(1)
    os.dup2(2, 1)
    try:
        yield os.fdopen(private, "wb", closefd=False)
    finally:
        os.dup2(private, 1)


def _private_duplicate(fd: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


class LineWriter:
    """Whole lines to the client, each one ``write`` on the loop's thread."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def line(self, data: bytes) -> None:
        """Write ``data`` (one line, newline included) and wait while the client lags."""
        self._writer.write(data)
        await self._writer.drain()

    async def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        """The response to ``request_id`` (a fast answer, :data:`SendAnswer`)."""
        response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        await self.line(json.dumps(response, separators=(",", ":")).encode() + b"\n")

    async def message(self, message: SessionMessage) -> None:
        """One of FastMCP's messages, written as the SDK's transport writes it."""
        text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
        await self.line(text.encode() + b"\n")


async def bounded_line(reader: asyncio.StreamReader, limit: int = MAX_JSON_BYTES) -> bytes:
    """The next line (newline included), :data:`TOO_LONG` for one longer than ``limit``
    (read to its end, at most a chunk held), or ``b""`` at the end of the stream."""
    parts: list[bytes] = []
    size = 0
    while True:
        try:
            part = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError as exc:  # no newline within a chunk: read on
            part = await reader.readexactly(exc.consumed)
        except asyncio.IncompleteReadError as exc:  # the end, maybe after a last line
            part = exc.partial
            if not part:
                break
        size += len(part)
        if size <= limit + 1:
            parts.append(part)
        else:
            parts = []
        if part.endswith(b"\n"):
            break
    if size - (1 if parts and parts[-1].endswith(b"\n") else 0) > limit:
        return TOO_LONG
    return b"".join(parts)


class _Out(asyncio.streams.FlowControlMixin):
    """The write pipe's protocol: flow control for ``drain``, and a future for its close."""

    def __init__(self) -> None:
        super().__init__()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.closed.done():
            self.closed.set_result(None)


async def serve_pipes(
    mcp: FastMCP[Any], route: FastRoute | None, source: IO[bytes], sink: IO[bytes]
) -> None:
    """Serve ``mcp`` on the pipes ``source`` (its requests) and ``sink`` (its answers) until
    ``source`` ends, answering the calls ``route`` claims on the fast path; the caller runs
    ``mcp``'s lifespan."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_CHUNK)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), source
    )
    write_transport, out = await loop.connect_write_pipe(_Out, sink)
    lines = LineWriter(asyncio.StreamWriter(write_transport, out, None, loop))
    server = mcp._mcp_server
    fast = None if route is None else FastCalls(route, lines.answer, Era(server.server_info_stamp))
    to_loop, from_reader = create_context_streams[SessionMessage | Exception](0)
    to_writer, from_loop = create_context_streams[SessionMessage](0)
    reading = anyio.CancelScope()

    async def read() -> None:
        with reading:
            async with to_loop:
                while line := await bounded_line(reader):
                    found = judged(line)
                    if isinstance(found, mcp_types.JSONRPCError):
                        await lines.line(encoded(found))
                    elif found is not None:
                        message = SessionMessage(found)
                        if fast is None or not fast.took(message):
                            await to_loop.send(message)

    async def write() -> None:
        async with from_loop:  # ends when the loop closes its write stream
            async for message in from_loop:
                await lines.message(message)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            try:
                await server.run(from_reader, to_writer, server.create_initialization_options())
            finally:
                reading.cancel()  # the loop may end before stdin does
                if fast is not None:
                    fast.close()  # as the SDK's loop cancels its requests at the end
                await to_writer.aclose()
    finally:
        read_transport.close()
        write_transport.close()  # what is still buffered is written first
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(out.closed), _FLUSH_GRACE)
        for pipe in (source, sink):
            with contextlib.suppress(OSError, ValueError):
                os.set_blocking(pipe.fileno(), True)  # as the fd was handed to us
