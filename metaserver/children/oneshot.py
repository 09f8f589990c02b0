"""Calling a registered tool from a process that is not the meta-server (``metaserver call``).

The server is started through the sandbox exactly as validation started it, called once over
stdio, and stopped.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from metaserver.children.launch import error_text, result_value, server_command, stdio_transport
from metaserver.exceptions import NotFoundError
from metaserver.registry import Registry
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

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
    record = Registry(settings.registry_path).resolve(server)
    if tool not in {t.name for t in record.tools}:
        names = ", ".join(t.name for t in record.tools)
        raise NotFoundError(f"server {server!r} has no tool {tool!r} (it has: {names})")
    command = server_command(
        get_sandbox(settings.sandbox),
        record.python_path,
        record.output_dir,
        settings.timeouts.tool_call,
    )
    client: Client[Any] = Client(
        stdio_transport(command, keep_alive=False),
        init_timeout=settings.timeouts.server_start,
        timeout=settings.timeouts.tool_call,
    )
    async with client:
        raw = await client.call_tool_mcp(tool, arguments)
    if raw.is_error:
        return False, explain_handles(error_text(raw), arguments)
    return True, result_value(raw)


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
