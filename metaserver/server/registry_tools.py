"""The meta-tools over the registry: search it, call a registered tool, list and remove
servers."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from pydantic import Field

from metaserver.auth.context import current_principal
from metaserver.exceptions import MetaServerError, NotFoundError
from metaserver.input_limits import MAX_QUERY_CHARS
from metaserver.registry.files import discard_removed
from metaserver.registry.records import split_ref
from metaserver.server.fast_calls import FastCall, FastRoute, call_result
from metaserver.server.proxied_call import proxied_result
from metaserver.server.resolved import ResolvedRecords
from metaserver.server.state import MetaState
from metaserver.telemetry.metrics import timed_search


def add_registry_tools(mcp: FastMCP[Any], state: MetaState) -> FastRoute:
    """Register ``list_tools``, ``call_generated``, ``list_servers``, ``remove_server`` and
    ``export_server``.

    Returns:
        The stdio fast path of ``call_generated`` (:mod:`metaserver.server.fast_calls`).
    """
    settings, registry = state.settings, state.registry
    mcp.add_middleware(_SayWhyEmpty())
    resolved = ResolvedRecords(registry)

    @mcp.tool
    async def list_tools(
        query: Annotated[
            str | None, Field(max_length=MAX_QUERY_CHARS, description="words to search for")
        ] = None,
        server: Annotated[
            str | None, Field(max_length=MAX_QUERY_CHARS, description="only this server's tools")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 20,
    ) -> list[dict[str, Any]]:
        """Registered tools, ranked by relevance to the query when one is given."""
        # Imported on the first search (or by the warm-up, server/warm_search.py): the
        # ranking brings numpy and the search models (issue 31).
        from metaserver.registry.search import search_tools

        if query:
            state.search.searched()  # from now on the index is reread at each change
        principal = current_principal()
        # A principal limited to some servers: search them all, then keep its own.
        wide = limit if principal.servers is None else 1000
        with timed_search():
            hits = await asyncio.to_thread(search_tools, registry, query, server, wide)
        mine = [hit for hit in hits if principal.sees(hit.server)][:limit]
        return [hit.model_dump(mode="json") for hit in mine]

    async def generated_result(
        server: str, tool: str, arguments: dict[str, Any] | None
    ) -> ToolResult:
        try:
            record = resolved.resolve(server)
        except NotFoundError as exc:
            name, version = split_ref(server)
            # a version named that this pool never ran is simply not there (``calc@nope``)
            if state.pool.served(name) and (version is None or state.pool.is_alive(server)):
                # Removed while its child runs here (by another process): say so.
                message = f"server {server!r} was removed: it is no longer registered"
                raise state.fail(message) from None
            raise state.fail(str(exc)) from None
        spec = next((t for t in record.tools if t.name == tool), None)
        if spec is None:
            raise state.fail(f"server {server!r} has no tool named {tool!r}")
        return await proxied_result(
            state.pool, record, tool, arguments or {}, spec.input_schema, settings.home
        )

    @mcp.tool
    async def call_generated(
        server: Annotated[
            str, Field(description="server name (its newest version), or name@version")
        ],
        tool: str,
        arguments: dict[str, Any] | None = None,
    ) -> ToolResult:
        """Call a tool of a registered server; the result is the generated tool's result."""
        return await generated_result(server, tool, arguments)

    async def fast_generated(arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        return call_result(
            await generated_result(
                arguments["server"], arguments["tool"], arguments.get("arguments")
            )
        )

    def route(name: str, arguments: Any) -> FastCall | None:
        """call_generated's fast path, for arguments of the declared types (others get
        FastMCP's own validation error on the full path)."""
        if name != "call_generated" or not isinstance(arguments, dict):
            return None
        if not set(arguments) <= {"server", "tool", "arguments"}:
            return None
        plain = isinstance(arguments.get("server"), str) and isinstance(arguments.get("tool"), str)
        inner = arguments.get("arguments")
        return fast_generated if plain and (inner is None or isinstance(inner, dict)) else None

    @mcp.tool
    async def list_servers() -> list[dict[str, Any]]:
        """Registered servers (newest version's source, commit, tool count, registration time)
        with all their versions, newest first; call an older one as name@version."""
        summaries = await asyncio.to_thread(registry.summaries)
        principal = current_principal()
        listings = [summary.listing() for summary in summaries]
        return [listing for listing in listings if principal.sees(str(listing["name"]))]

    @mcp.tool
    async def remove_server(
        server: Annotated[
            str, Field(description="server name (every version), or name@version (that one)")
        ],
        ctx: Context,
    ) -> dict[str, Any]:
        """Unregister a server (or one version), stop its processes, delete its files."""
        name, _ = split_ref(server)
        try:
            removed = await asyncio.to_thread(registry.remove, *split_ref(server))
        except NotFoundError as exc:
            raise state.fail(str(exc)) from None
        # Rows first, then processes, then files: a crash in between leaves unregistered
        # directories (swept later), never a registered server without its files.
        for record in removed:
            await state.pool.stop(record.ref)
        if settings.expose_direct_tools:
            state.direct.sync(registry)
        # Under the server's lock; files another process's live child runs from stay.
        await asyncio.to_thread(discard_removed, settings, removed, registry)
        await state.notifier.notify(ctx)
        return {
            "removed": server,
            "tools": len(removed[0].tools),
            "versions": [record.version_id for record in removed],
            "remaining": [record.version_id for record in registry.versions(name)],
        }

    @mcp.tool
    async def export_server(
        server: Annotated[
            str, Field(description="server name (its newest version), or name@version")
        ],
        format: Annotated[
            Literal["patch", "files"],
            Field(description="patch: a git format-patch mail; files: the change's files"),
        ] = "patch",
    ) -> dict[str, Any]:
        """A converted server as a change to the repository it came from (an mcp/ folder and
        the mcp extra): the patch text to open a pull request with, or its files."""
        from metaserver.export import export_answer  # git and the tree only when asked

        try:
            return await asyncio.to_thread(export_answer, settings, server, format)
        except MetaServerError as exc:  # unknown, not from git, or git failed: say so
            raise state.fail(str(exc)) from None

    return route


class _SayWhyEmpty(Middleware):
    """An empty ``list_tools`` or ``list_servers`` answer says so in words.

    FastMCP renders an empty list as no content at all, which a client shows as a blank; the
    structured result stays ``{"result": []}``, as the output schema promises.
    """

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        result = await call_next(context)
        name = context.message.name
        if (
            name in ("list_tools", "list_servers")
            and isinstance(result, ToolResult)
            and result.structured_content == {"result": []}
        ):
            sentence = _empty_sentence(name, context.message.arguments or {})
            result.content = [mcp_types.TextContent(type="text", text=sentence)]
        return result


def _empty_sentence(tool: str, arguments: dict[str, Any]) -> str:
    if tool == "list_servers":
        return "no servers are registered; convert_repo(source) or add_server(name, ...) adds one"
    query, server = arguments.get("query"), arguments.get("server")
    where = f" of server {server!r}" if server else ""
    if query:
        shown = query if len(query) <= 80 else query[:80] + "..."  # never echoed whole
        return f"no tools{where} match {shown!r}"
    if server:
        return f"no tools{where}: no registered server has that name"
    return "no tools are registered; convert_repo(source) adds some"
