"""What a stdio line that is not a JSON-RPC message is answered with.

The MCP SDK's stdio reader (``mcp.server.stdio.stdio_server``) validates each line with
``mcp_types.jsonrpc_message_adapter`` and turns a failure into an exception that its serving
loop drops: a client that sent a truncated or absurdly nested request would wait forever.
JSON-RPC 2.0 says such a request gets an error response whose id is null: -32700 (parse
error) when the line is not JSON, -32600 (invalid request) when it is JSON but not a
message. Both stdio servers answer them with this module: the meta-server
(:mod:`metaserver.server.stdio`) and one generated server relayed by ``metaserver run``
(:mod:`metaserver.children.standalone`).
"""

from __future__ import annotations

import mcp_types
from pydantic import ValidationError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


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
    """None when ``line`` is a JSON-RPC message (or blank), else the answer it gets, as the
    SDK's reader would judge it."""
    if not line.strip():
        return None
    text = line.decode("utf-8", "replace")  # as the SDK's reader decodes
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        return error_for(exc)
    return None


def encoded(answer: mcp_types.JSONRPCError) -> bytes:
    """``answer`` as one line, written the way the SDK writes a message."""
    return answer.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


def _error(code: int, message: str) -> mcp_types.JSONRPCError:
    return mcp_types.JSONRPCError(
        jsonrpc="2.0", id=None, error=mcp_types.ErrorData(code=code, message=message)
    )
