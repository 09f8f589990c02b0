"""The ``find_tools`` meta-tool: the few registered tools a task needs, ready to call.

For clients that load tools on demand instead of listing thousands: a plain-language task in,
the best few tools out (the hybrid ranking of :mod:`metaserver.registry.search`), each with
its full input schema and the names to call it by: its direct ``<server>_<tool>`` tool when
that is mounted, and always ``call_generated(server, tool, arguments)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

from metaserver.auth.context import current_principal
from metaserver.input_limits import MAX_QUERY_CHARS
from metaserver.registry.store import Registry
from metaserver.server.direct import DirectTools, direct_name
from metaserver.telemetry.metrics import timed_search

FIND_TOOLS = "find_tools"


def add_find_tools(
    mcp: FastMCP[Any],
    registry: Registry,
    direct: DirectTools,
    searched: Callable[[], None] | None = None,
) -> None:
    """Register ``find_tools`` on ``mcp`` (a name the meta-server reserves from generated
    tools); ``direct`` says which direct tools are mounted; ``searched`` is told of each
    search (:class:`~metaserver.server.warm_search.SearchWarmer` keeps the index warm)."""

    @mcp.tool(name=FIND_TOOLS)
    async def find_tools(
        task: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_QUERY_CHARS,
                description="what needs doing, in plain language",
            ),
        ],
        limit: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> list[dict[str, Any]]:
        """The registered tools best suited to a task, best first, each with its full input
        schema and how to call it: ``direct_tool`` (when mounted) or ``call_generated`` with
        the given server and tool."""
        # Imported on the first search (or by the warm-up, server/warm_search.py): the
        # ranking brings numpy and the search models (issue 31).
        from metaserver.registry.search import search_tools

        if searched is not None:
            searched()
        principal = current_principal()
        wide = limit if principal.servers is None else 1000  # then only its own servers
        with timed_search():
            hits = await asyncio.to_thread(search_tools, registry, task, None, wide)
        hits = [hit for hit in hits if principal.sees(hit.server)][:limit]
        mounted = direct.mounted()
        found = []
        for hit in hits:
            name = direct_name(hit.server, hit.tool)
            found.append(
                {
                    **hit.model_dump(mode="json"),
                    "direct_tool": name if name in mounted.get(hit.server, []) else None,
                    "call_generated": {"server": hit.server, "tool": hit.tool},
                }
            )
        return found
