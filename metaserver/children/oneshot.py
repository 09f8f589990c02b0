"""Calling a registered tool from a process that is not the meta-server (``metaserver call``).

The server is started through the sandbox exactly as validation started it, called once over
stdio, and stopped; an added HTTP server is called once at its URL.
"""

from __future__ import annotations

import logging
from typing import Any

from fastmcp import Client
from fastmcp.client.logging import LogMessage

from metaserver.children.connect import transport_for
from metaserver.children.launch import error_text, result_value
from metaserver.children.tool_timeouts import tool_timeout
from metaserver.exceptions import NotFoundError
from metaserver.registry import Registry, ServerRecord
from metaserver.registry.files import hold_files
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

# The prefix of handle ids (runtime/handles.py HANDLE_PREFIX); runtime/ is what generated
# servers import, and the rest of metaserver does not import it (ARCHITECTURE.md section 2).
HANDLE_PREFIX = "h_"


async def call_tool(
    settings: Settings, server: str, tool: str, arguments: dict[str, Any]
) -> tuple[bool, Any]:
    """(True, result) or (False, error text) for one call of ``server``'s ``tool``.

    ``server`` is a name (its newest version) or ``name@version``.

    Raises:
        NotFoundError: no such server, or the server has no such tool.
    """
    registry = Registry(settings.registry_path)
    record = registry.resolve(server)
    if tool not in {t.name for t in record.tools}:
        names = ", ".join(t.name for t in record.tools)
        raise NotFoundError(f"server {server!r} has no tool {tool!r} (it has: {names})")
    sandbox = None if _is_http(record) else get_sandbox(settings.sandbox)
    timeout = tool_timeout(record, tool, settings.timeouts.tool_call)
    # The child's whole life: its start, then the one call.
    lifetime = settings.timeouts.server_start + timeout
    transport = transport_for(record, sandbox, lifetime, keep_alive=False)
    client: Client[Any] = Client(
        transport,
        init_timeout=settings.timeouts.server_start,
        timeout=timeout,
        log_handler=_server_log,
    )
    # The files stay while the child runs, whatever another process removes meanwhile.
    lease = None if sandbox is None else hold_files(settings, record, registry)
    try:
        async with client:
            raw = await client.call_tool_mcp(tool, arguments)
    finally:
        if lease is not None:
            lease.release()
    if raw.is_error:
        return False, explain_handles(error_text(raw), arguments)
    return True, result_value(raw)


async def _server_log(message: LogMessage) -> None:
    """A server's own log messages are for ``-v``: the client's default printed them framed,
    between the command and its result (an added server's greeting, on every call)."""
    logger.debug("%s: %s", message.logger or "server", message.data)


def _is_http(record: ServerRecord) -> bool:
    return record.endpoint is not None and record.endpoint.transport == "http"


def explain_handles(error: str, arguments: dict[str, Any]) -> str:
    """``error``, said plainly when it is a handle this process never made.

    A handle lives in the server process that made it, and each ``metaserver call`` starts
    a new one, so a handle from an earlier call is unknown here whether or not it expired.
    """
    if "unknown or expired handle" not in error:
        return error
    handles = sorted(_handles(arguments))
    if not handles:
        return error
    return (
        f"{', '.join(handles)} is a handle from another server process: a handle lives in "
        "the server process that made it, and each `metaserver call` starts a new one. "
        "Make the object and use it in one session (`metaserver serve`, or `metaserver run` "
        "from an MCP client), or pass the value the object was built from instead."
    )


def _handles(value: Any) -> set[str]:
    """The handle ids in ``value``: ``{"handle": id}`` descriptors and bare ``h_`` ids."""
    if isinstance(value, dict):
        found = {value["handle"]} if isinstance(value.get("handle"), str) else set()
        return found.union(*(_handles(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_handles(v) for v in value))
    if isinstance(value, str) and value.startswith(HANDLE_PREFIX):
        return {value}
    return set()
