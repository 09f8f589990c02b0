"""The meta-server: an MCP server whose tools convert repositories into MCP servers.

Tools (the contract in DESIGN.md, "Meta-server tools"): ``convert_repo``, ``list_tools``,
``call_generated``, ``list_servers``, ``remove_server``; and, unless
``settings.expose_direct_tools`` is off, every registered tool as ``<server>_<tool>``
(:mod:`metaserver.server.direct`). Generated servers run as lazily started, sandboxed children
(:mod:`metaserver.children.pool`); tool-list changes are announced by
:mod:`metaserver.server.notify`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.auth import StaticTokenVerifier
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from pydantic import Field

from metaserver.children.pool import ChildPool
from metaserver.exceptions import MetaServerError, NotFoundError, UserError
from metaserver.registry.files import discard_files
from metaserver.registry.records import split_ref
from metaserver.registry.search import search_tools
from metaserver.registry.store import Registry
from metaserver.server.direct import DirectTools, check_arguments, child_result, public_message
from metaserver.server.finding import add_find_tools
from metaserver.server.notify import ListChangedNotifier
from metaserver.server.tasks import enable_tasks
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

META_TOOLS = frozenset(
    {"convert_repo", "list_tools", "find_tools", "call_generated", "list_servers", "remove_server"}
)

INSTRUCTIONS = """\
metaserver turns code repositories into MCP servers. convert_repo(source) converts a git URL,
a local directory or pypi:NAME into a validated server and mounts its tools as
<server>_<tool>. list_tools(query) searches every registered tool; call_generated(server,
tool, arguments) calls one without relying on the tool list."""


def build_server(settings: Settings) -> FastMCP[Any]:
    """Build the meta-server for ``settings``, with every registered server mounted.

    Args:
        settings: where the registry lives, limits, auth (used by the HTTP transport).

    Returns:
        A FastMCP server named ``metaserver``; its lifespan stops the children on exit.
    """
    registry = Registry(settings.registry_path)
    pool = ChildPool(settings)
    notifier = ListChangedNotifier()
    conversions = asyncio.Semaphore(settings.max_concurrent_conversions)

    @asynccontextmanager
    async def lifespan(_: FastMCP[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await pool.close()

    token = settings.auth.token.get_secret_value() if settings.auth.token else ""
    auth = (
        StaticTokenVerifier(tokens={token: {"client_id": "metaserver-client", "scopes": []}})
        if token
        else None
    )
    mcp: FastMCP[Any] = FastMCP(
        "metaserver", instructions=INSTRUCTIONS, auth=auth, lifespan=lifespan
    )
    mcp.add_middleware(_ScrubErrors(settings.home))
    notifier.install(mcp)
    as_task = enable_tasks(mcp)
    direct = DirectTools(
        pool, settings.home, reserved=set(META_TOOLS), list_limit=settings.max_listed_tools
    )
    mcp.add_provider(direct)

    def fail(message: str) -> ToolError:
        return ToolError(public_message(message, settings.home))

    @mcp.tool(task=as_task or False)
    async def convert_repo(
        source: Annotated[str, Field(description="git URL, local directory, or pypi:NAME")],
        ctx: Context,
        ref: Annotated[str | None, Field(description="git branch, tag or commit")] = None,
        max_tools: Annotated[int | None, Field(ge=1, le=200)] = None,
    ) -> dict[str, Any]:
        """Convert a repository into a validated MCP server, register it and mount its tools.

        Returns the conversion report; progress is reported at each stage. Clients that
        support MCP tasks get a task to poll or cancel.
        """
        from metaserver.pipeline import convert  # lazily: the pipeline is heavy

        async def progress(message: str, done: float, total: float) -> None:
            await ctx.report_progress(done, total, message)

        async with conversions:
            try:
                report = await convert(
                    source, settings=settings, ref=ref, max_tools=max_tools, progress=progress
                )
            except UserError as exc:
                raise fail(str(exc)) from exc
            except MetaServerError as exc:
                raise fail(f"conversion failed: {exc}") from exc
            except Exception as exc:
                # As a task, the call bypasses the middleware that scrubs errors: say it here.
                logger.exception("conversion of %s failed unexpectedly", source)
                raise fail(f"conversion failed: internal error: {exc}") from exc
        if report.status == "success":
            # A replaced version's files are gone: its child must not keep serving them. Other
            # versions' children stay; the new version gets a child of its own on first call.
            versions = await asyncio.to_thread(registry.versions, report.server)
            await pool.retain(report.server, {v.version_id for v in versions})
            if settings.expose_direct_tools:
                try:
                    direct.mount(registry.get(report.server))
                except NotFoundError:
                    logger.error("converted server %s is not in the registry", report.server)
            await notifier.notify(ctx)
        return report.model_dump(mode="json")

    @mcp.tool
    async def list_tools(
        query: Annotated[str | None, Field(description="words to search for")] = None,
        server: Annotated[str | None, Field(description="only this server's tools")] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 20,
    ) -> list[dict[str, Any]]:
        """Registered tools, ranked by relevance to the query when one is given."""
        hits = await asyncio.to_thread(search_tools, registry, query, server, limit)
        return [hit.model_dump(mode="json") for hit in hits]

    add_find_tools(mcp, registry, direct)  # the find_tools meta-tool (server/finding.py)

    @mcp.tool
    async def call_generated(
        server: Annotated[
            str, Field(description="server name (its newest version), or name@version")
        ],
        tool: str,
        arguments: dict[str, Any] | None = None,
    ) -> ToolResult:
        """Call a tool of a registered server; the result is the generated tool's result."""
        try:
            record = registry.resolve(server)
        except NotFoundError as exc:
            raise fail(str(exc)) from None
        spec = next((t for t in record.tools if t.name == tool), None)
        if spec is None:
            raise fail(f"server {server!r} has no tool named {tool!r}")
        arguments = arguments or {}
        problem = check_arguments(spec.input_schema, arguments)
        if problem is not None:
            raise fail(problem)
        return child_result(await pool.call(record, tool, arguments), settings.home)

    @mcp.tool
    async def list_servers() -> list[dict[str, Any]]:
        """Registered servers (newest version's source, commit, tool count, registration time)
        with all their versions, newest first; call an older one as name@version."""
        summaries = await asyncio.to_thread(registry.summaries)
        return [summary.listing() for summary in summaries]

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
            raise fail(str(exc)) from None
        # Rows first, then processes, then files: a crash in between leaves unregistered
        # directories (swept later), never a registered server without its files.
        for record in removed:
            await pool.stop(record.ref)
        if settings.expose_direct_tools:
            direct.sync(registry)
        await asyncio.to_thread(discard_files, settings, removed, registry)
        await notifier.notify(ctx)
        return {
            "removed": server,
            "tools": len(removed[0].tools),
            "versions": [record.version_id for record in removed],
            "remaining": [record.version_id for record in registry.versions(name)],
        }

    # Mounted after the meta-tools, which therefore come first in tools/list.
    if settings.expose_direct_tools:
        try:
            direct.sync(registry)
        except MetaServerError as exc:  # serve the meta-tools even with a broken registry
            logger.error("registered servers were not mounted: %s", exc)
        mcp.add_middleware(_SyncOnList(direct, registry))
    return mcp


class _ScrubErrors(Middleware):
    """A safety net under every tool: FastMCP turns an unexpected exception into a ToolError
    carrying the exception's text, which may name paths in the home (a RegistryError does)."""

    def __init__(self, home: Path) -> None:
        self._home = home

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        try:
            return await call_next(context)
        except ToolError as exc:
            message = public_message(str(exc), self._home)
            if message == str(exc):
                raise
            raise ToolError(message) from None


class _SyncOnList(Middleware):
    """Re-reads the registry before each tools/list, so servers registered by another process
    (``metaserver convert``) are listed without a restart."""

    def __init__(self, direct: DirectTools, registry: Registry) -> None:
        self._direct = direct
        self._registry = registry

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        try:
            self._direct.sync(self._registry)
        except MetaServerError as exc:
            logger.error("could not re-read the registry: %s", exc)
        result: list[Tool] = await call_next(context)
        return result


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` exposes the server to this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # any other name may resolve anywhere


async def run(
    settings: Settings, transport: Literal["stdio", "http"], host: str, port: int
) -> None:
    """Serve the meta-server until it is stopped.

    Args:
        settings: the configuration.
        transport: ``stdio``, or ``http`` (streamable HTTP at ``/mcp``).
        host: HTTP only: the address to bind; a non-loopback one requires ``auth.token``.
        port: HTTP only: the port to bind.

    Raises:
        UserError: a non-loopback HTTP bind without a token.
    """
    _log_to_stderr()
    token = settings.auth.token.get_secret_value() if settings.auth.token else ""
    if transport == "http" and not is_loopback(host) and not token:
        raise UserError(
            f"refusing to serve HTTP on {host!r} without authentication: set "
            "METASERVER_AUTH__TOKEN, or bind 127.0.0.1"
        )
    mcp = build_server(settings)
    if transport == "stdio":
        await mcp.run_stdio_async(show_banner=False)
        return
    await mcp.run_http_async(
        show_banner=False,
        transport="http",
        host=host,
        port=port,
        path="/mcp",
        # DNS-rebinding protection: Host must be loopback (or the host bound, when one is
        # named), and a foreign Origin gets 403. FastMCP ships with this off.
        host_origin_protection=True,
        # No uvicorn logging config: its records reach the root logger, on stderr.
        uvicorn_config={"log_config": None, "access_log": False},
    )


def _log_to_stderr() -> None:
    # stdout is the MCP stream under stdio; every log line goes to stderr.
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
