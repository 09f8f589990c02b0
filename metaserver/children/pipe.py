"""One long-lived MCP session with a stdio child, spoken directly as JSON-RPC lines.

The pool's hop to a generated server (issue 31): a FastMCP ``Client`` re-validates each
message through pydantic models, memory streams and task groups, which cost more than the
pipe itself (a tool call took ~8 ms through it and ~4 ms as a raw line on the loaded 2-core
machine). This session writes each request as one line, routes each answer to its caller by
id, and hands back the answer's ``result`` as parsed JSON: the child validates its own
arguments and results; the meta-server checks the arguments once, against the cached schema,
before the call (:mod:`metaserver.server.direct`). The size cap is the answer line's length,
so an oversized answer is refused without being parsed or serialised again.

Lifecycle as the MCP SDK's stdio client (``mcp.client.stdio``): the child runs in a process
group of its own with the SDK's default environment under the command's; closing shuts its
stdin, waits a grace period, then SIGTERMs and finally SIGKILLs the group. The handshake is
the classic ``initialize`` (the legacy era the pool always used), then one ``tools/list``.
Requests from the child (``ping``, sampling, roots) get an answer (an empty result for
``ping``, "method not found" for the rest); its notifications (logs, progress, list changes)
are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import re
import signal
from pathlib import Path
from typing import Any

from mcp.client.stdio import get_default_environment
from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from metaserver import __version__
from metaserver.sandbox import Command

logger = logging.getLogger(__name__)

# As the SDK's stdio client: the grace period after stdin closes, then after SIGTERM.
_EXIT_GRACE = 2.0
_KILL_GRACE = 2.0
# Room over the result cap for the JSON-RPC envelope of an answer line.
_ENVELOPE = 64 * 1024
_CHUNK = 64 * 1024
# The id of an answer whose line is too long to parse: the SDK's servers write it first.
_LEADING_ID = re.compile(rb'"id"\s*:\s*(-?\d+)')


class OversizedAnswer(RuntimeError):
    """The child's answer line is longer than the cap; it was read and dropped unparsed."""

    def __init__(self, size: int) -> None:
        super().__init__(f"an answer of over {size} bytes")
        self.size = size


class PipeSession:
    """An initialized MCP session over a child's stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process, max_line: int) -> None:
        self._process = process
        self._max_line = max_line
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[tuple[dict[str, Any], int]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    async def start(
        cls, command: Command, log_file: Path, max_result: int, timeout: float
    ) -> PipeSession:
        """Start ``command`` and complete the ``initialize`` handshake within ``timeout``.

        Args:
            command: the sandboxed command of the child.
            log_file: where the child's stderr goes (appended).
            max_result: the longest answer line accepted (the result cap), envelope aside.
            timeout: seconds for the start and the handshake.

        Raises:
            ConnectionError: the child ended or closed its stdout before answering.
            TimeoutError: no answer within ``timeout``.
            MCPError: the child refused the handshake.
        """
        command.cwd.mkdir(parents=True, exist_ok=True)
        with log_file.open("ab") as log:
            process = await asyncio.create_subprocess_exec(
                *command.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                env=get_default_environment() | command.env,
                cwd=command.cwd,
                start_new_session=True,  # its own group, killed whole (as the SDK does)
                limit=_CHUNK,
            )
        session = cls(process, max_result + _ENVELOPE)
        session._reader = asyncio.create_task(session._read_forever(), name="metaserver-pipe")
        try:
            await session.request(
                "initialize",
                {
                    "protocolVersion": LATEST_HANDSHAKE_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "metaserver", "version": __version__},
                },
                timeout,
            )
            await session._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            # Within the start's budget: a server does its first-request work (building its
            # tools' models) here, not in the first call's own time limit; the SDK's client
            # listed the tools before a first call too.
            await session.request("tools/list", {}, timeout)
        except BaseException:
            await session.close()
            raise
        return session

    def is_dead(self) -> bool:
        """Whether the child ended or its stdout closed (no answer can come any more)."""
        reader = self._reader
        return (
            self._closed or self._process.returncode is not None or reader is None or reader.done()
        )

    async def request(
        self, method: str, params: dict[str, Any], timeout: float
    ) -> tuple[dict[str, Any], int]:
        """Send one request and wait for its answer.

        Returns:
            The answer's ``result`` and the length of its line in bytes.

        Raises:
            MCPError: the child answered with an error.
            OversizedAnswer: the answer line is over the cap.
            TimeoutError: no answer within ``timeout`` (the child is told to cancel).
            ConnectionError: the child went away first.
        """
        if self.is_dead():
            raise ConnectionError("the server's connection is closed")
        request_id = next(self._ids)
        answer: asyncio.Future[tuple[dict[str, Any], int]] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting[request_id] = answer
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            await self._send(message)
            # A timeout scope, not ``wait_for``: on Python 3.11 that wraps the wait in a task
            # of its own and a shield, three more turns of the loop a call (issue 31).
            async with asyncio.timeout(timeout):
                return await answer
        except TimeoutError:
            with contextlib.suppress(Exception):
                await self._send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": request_id, "reason": "timed out"},
                    }
                )
            raise
        finally:
            self._waiting.pop(request_id, None)
            if not answer.done():
                answer.cancel()

    async def close(self) -> None:
        """End the child: stdin closed, a grace period, then the group SIGTERMed, SIGKILLed."""
        self._closed = True
        process = self._process
        stdin = process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        if not await _exited(process, _EXIT_GRACE):
            _signal_group(process.pid, signal.SIGTERM)
            if not await _exited(process, _KILL_GRACE):
                _signal_group(process.pid, signal.SIGKILL)
                await _exited(process, _KILL_GRACE)
        reader = self._reader
        if reader is not None and not reader.done():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
        self._fail_all(ConnectionError("the server's connection is closed"))

    async def _send(self, message: dict[str, Any]) -> None:
        stdin = self._process.stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionError("the server's stdin is closed")
        stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        await stdin.drain()

    async def _read_forever(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        try:
            while True:
                line = await self._read_line(stdout)
                if line is None:
                    break
                await self._dispatch(line)
        except Exception as exc:  # a broken pipe: every caller learns it now
            logger.warning("reading from a server failed: %s", exc)
        finally:
            self._fail_all(ConnectionError("the server closed its output"))

    async def _read_line(self, stdout: asyncio.StreamReader) -> bytes | None:
        """The next line; None at the end. A line past the cap is read on in chunks and
        dropped: its caller (found by the id it starts with) gets :class:`OversizedAnswer`."""
        parts: list[bytes] = []
        head = b""
        size = 0
        while True:
            try:
                part = await stdout.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:  # no newline within a chunk: read on
                part = await stdout.readexactly(exc.consumed)
            except asyncio.IncompleteReadError as exc:
                if not exc.partial and size == 0:
                    return None
                part = exc.partial + b"\n"  # a last line without its newline
            head = head or part[:256]
            size += len(part)
            if size <= self._max_line:
                parts.append(part)
            else:
                parts = []
            if part.endswith(b"\n"):
                break
        if size <= self._max_line:
            return b"".join(parts)
        found = _LEADING_ID.search(head)
        waiting = self._waiting.get(int(found.group(1))) if found else None
        if waiting is not None and not waiting.done():
            waiting.set_exception(OversizedAnswer(size))
        else:
            logger.warning("dropped a %d-byte line from a server", size)
        return b""

    async def _dispatch(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            logger.warning("a server wrote a line that is not JSON: %.200r", line)
            return
        if not isinstance(message, dict):
            return
        if "method" in message:
            if "id" in message:  # a request of the child's own
                await self._answer_request(message)
            return
        waiting = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if waiting is None or waiting.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            waiting.set_exception(
                MCPError(
                    int(error.get("code", 0)), str(error.get("message", "")), error.get("data")
                )
            )
            return
        result = message.get("result")
        waiting.set_result((result if isinstance(result, dict) else {}, len(line)))

    async def _answer_request(self, message: dict[str, Any]) -> None:
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if message["method"] == "ping":
            answer["result"] = {}
        else:
            answer["error"] = {"code": METHOD_NOT_FOUND, "message": "not supported"}
        with contextlib.suppress(Exception):
            await self._send(answer)

    def _fail_all(self, exc: BaseException) -> None:
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_exception(exc)


async def _exited(process: asyncio.subprocess.Process, timeout: float) -> bool:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), timeout)
    return process.returncode is not None


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)
