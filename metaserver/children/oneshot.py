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
        return False, error_text(raw)
    return True, result_value(raw)
