"""What a stdio line that is not a JSON-RPC message is answered with.

The MCP SDK's stdio reader (``mcp.server.stdio.stdio_server``) validates each line with
``mcp_types.jsonrpc_message_adapter`` and turns a failure into an exception that its serving
loop drops: a client that sent a truncated or absurdly nested request would wait forever.
JSON-RPC 2.0 says such a request gets an error response whose id is null: -32700 (parse
error) when the line is not JSON, -32600 (invalid request) when it is JSON but not a
message. A line is also refused (-32700) past the bounds every surface keeps
(:mod:`metaserver.input_limits`: size, depth, number length, NaN), and a request whose id is
neither a string nor a number (-32600), which the SDK would take for a notification and never
answer. Both stdio servers answer them with this module: the meta-server
(:mod:`metaserver.server.stdio`) and one generated server relayed by ``metaserver run``
(:mod:`metaserver.children.standalone`).
"""

from __future__ import annotations

import json
from typing import IO

import mcp_types
from pydantic import ValidationError

from metaserver.input_limits import MAX_JSON_BYTES, json_problem

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

# What :class:`BoundedLines` hands on in place of a line longer than MAX_JSON_BYTES: a line
# that is no JSON, so that any reader refuses it, and that :func:`judge` names.
TOO_LONG = b"\x00line too long\n"


def error_for(exc: Exception) -> mcp_types.JSONRPCError | None:
    """The answer to a line the reader could not turn into a message (None: no answer, for
    a blank line)."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        if errors and errors[0]["type"] == "json_invalid":
            line = errors[0].get("input")
            if isinstance(line, str) and not line.strip():
                return None  # a stray newline is no request
            # The parser's reason (such as "recursion limit exceeded"), not the line itself.
            reason = str(errors[0].get("ctx", {}).get("error", "invalid JSON"))
            return _error(PARSE_ERROR, f"Parse error: {reason[:200]}")
        return _error(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
    return _error(PARSE_ERROR, "Parse error")


def judge(line: bytes) -> mcp_types.JSONRPCError | None:
    """None when ``line`` is a JSON-RPC message (or blank), else the answer it gets: as the
    SDK's reader would judge it, and within the bounds of :mod:`metaserver.input_limits`
    (which the SDK does not keep: it reads NaN, and a request whose ``id`` is an object as
    a notification, which is never answered)."""
    answer = judged(line)
    return answer if isinstance(answer, mcp_types.JSONRPCError) else None


def judged(line: bytes) -> mcp_types.JSONRPCMessage | mcp_types.JSONRPCError | None:
    """:func:`judge`, handing on what it parsed: the message ``line`` holds, the error answer
    it gets, or None for a blank line (a reader that takes the message need not parse the
    line a second time)."""
    if line == TOO_LONG:
        return _error(PARSE_ERROR, f"Parse error: the line is longer than {_mib()} MiB")
    if not line.strip():
        return None
    text = line.decode("utf-8", "replace")  # as the SDK's reader decodes
    problem = json_problem(text)
    if problem is not None:
        return _error(PARSE_ERROR, f"Parse error: {problem}")
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        return error_for(exc)
    if isinstance(message, mcp_types.JSONRPCNotification) and '"id"' in text:
        raw = json.loads(text)
        if isinstance(raw, dict) and "id" in raw:
            # A request whose id is no string or number: JSON-RPC's Invalid Request.
            return _error(INVALID_REQUEST, "Invalid Request: id must be a string or a number")
    return message


class BoundedLines:
    """Lines of a binary stream, each read with at most MAX_JSON_BYTES held: a longer line
    is read to its end, dropped, and handed on as :data:`TOO_LONG`."""

    def __init__(self, source: IO[bytes], limit: int = MAX_JSON_BYTES) -> None:
        self._source = source
        self._limit = limit

    def readline(self) -> bytes:
        """The next line (with its newline), :data:`TOO_LONG`, or ``b""`` at the end."""
        line = self._source.readline(self._limit + 1)
        if len(line) <= self._limit or line.endswith(b"\n"):
            return line
        while True:  # the rest of the long line, in bounded pieces
            rest = self._source.readline(self._limit)
            if not rest or rest.endswith(b"\n"):
                return TOO_LONG

    def __iter__(self) -> BoundedLines:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def encoded(answer: mcp_types.JSONRPCError) -> bytes:
    """``answer`` as one line, written the way the SDK writes a message."""
    return answer.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


def _error(code: int, message: str) -> mcp_types.JSONRPCError:
    return mcp_types.JSONRPCError(
        jsonrpc="2.0", id=None, error=mcp_types.ErrorData(code=code, message=message)
    )


def _mib() -> int:
    return MAX_JSON_BYTES // (1024 * 1024)
