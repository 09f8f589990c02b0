"""The meta-server: an MCP server whose tools convert repositories into MCP servers.

Tools (the contract in docs/ARCHITECTURE.md, "Contracts"): ``convert_repo``,
``conversion_status``, ``cancel_conversion`` (conversions run as jobs,
:mod:`metaserver.server.jobs`), ``list_tools``, ``call_generated``, ``list_servers``,
``remove_server``, ``add_server`` (an existing MCP server joins the registry); and, unless
``settings.expose_direct_tools`` is off, every registered tool as ``<server>_<tool>``
(:mod:`metaserver.server.direct`). Generated servers run as lazily started, sandboxed children
(:mod:`metaserver.children.pool`); tool-list changes are announced by
:mod:`metaserver.server.notify`.
"""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool
from starlette.middleware import Middleware as ASGIMiddleware

from metaserver import __version__
from metaserver.auth.audit import AuditLog
from metaserver.auth.guard import Guard
from metaserver.auth.http_quota import HttpQuota
from metaserver.auth.quotas import CallRate
from metaserver.auth.tokens import TokenStore
from metaserver.auth.verifier import auth_configured, build_auth
from metaserver.children.pool import ChildPool
from metaserver.exceptions import MetaServerError, UserError
from metaserver.registry.files import sweep_home
from metaserver.registry.store import Registry
from metaserver.server.adding import add_adding_tools
from metaserver.server.bearer_errors import BearerErrors
from metaserver.server.bounded_bodies import BoundedBodies
from metaserver.server.conversion_tools import add_conversion_tools
from metaserver.server.direct import DirectTools
from metaserver.server.documents import DirectDocuments
from metaserver.server.fast_calls import FastCall, FastRoute
from metaserver.server.finding import add_find_tools
from metaserver.server.notify import ListChangedNotifier
from metaserver.server.proxied_call import guarded_route
from metaserver.server.public import public_message
from metaserver.server.registry_tools import add_registry_tools
from metaserver.server.state import META_TOOLS, MetaState
from metaserver.server.stdio import run_stdio
from metaserver.server.tasks import enable_tasks
from metaserver.settings import Settings
from metaserver.telemetry import tracing
from metaserver.telemetry.logs import LogFormat, configure_logging
from metaserver.telemetry.metrics import watch_children

logger = logging.getLogger(__name__)

INSTRUCTIONS = """\
metaserver turns code repositories into MCP servers. convert_repo(source) converts a git URL,
a local directory or pypi:NAME into a validated server and mounts its tools as
<server>_<tool>. A conversion goes on if the call is abandoned: conversion_status(source)
tells how it stands or ended, cancel_conversion(job) stops it. list_tools(query) searches
every registered tool; call_generated(server, tool, arguments) calls one without relying on
the tool list. add_server(name, command=..., args=...) or add_server(name, url=...) registers
an existing MCP server the same way."""


def build_server(settings: Settings) -> FastMCP[Any]:
    """Build the meta-server for ``settings``, with every registered server mounted.

    Args:
        settings: where the registry lives, limits, auth (used by the HTTP transport).

    Returns:
        A FastMCP server named ``metaserver``; its lifespan stops the children on exit.
    """
    return build_served(settings)[0]


def build_served(settings: Settings) -> tuple[FastMCP[Any], FastRoute]:
    """:func:`build_server`, with the fast path of its proxied calls (direct tools and
    ``call_generated``) that the stdio transport answers beside FastMCP's dispatch
    (:mod:`metaserver.server.fast_calls`)."""
    registry = Registry(settings.registry_path)
    pool = ChildPool(settings, registry=registry)

    @asynccontextmanager
    async def lifespan(_: FastMCP[Any]) -> AsyncIterator[dict[str, Any]]:
        # What killed processes of the home left, in a thread beside the start (issue 28).
        sweeping = asyncio.create_task(asyncio.to_thread(_sweep, settings, registry))
        # The search index reread after each registration, once this process searches.
        warming = asyncio.create_task(state.search.run())
        # What the start built (1,500 modules, their classes and pydantic models) lives as long
        # as the server: out of the collector's generations, a full collection no longer walks
        # it in the middle of a search (issue 31: the first search after a registration, asked
        # at once, median 145 ms against 82 with it frozen, docs/ARCHITECTURE.md decision 33).
        gc.freeze()
        try:
            yield {}
        finally:
            warming.cancel()
            state.audit.flush()  # the calls' rows still queued (auth.audit), first of all
            await state.jobs.close()  # a stopped server's conversions leave nothing behind
            await pool.close()
            await sweeping

    # Checked at start: the first `metaserver token create` needs a restart to take effect.
    try:
        auth = build_auth(settings.auth, TokenStore(registry))
    except (MetaServerError, OSError, ValueError) as exc:
        raise UserError(f"authentication cannot be set up: {exc}") from None
    mcp: FastMCP[Any] = FastMCP(
        "metaserver",
        version=__version__,  # serverInfo.version: metaserver's own, not FastMCP's
        instructions=INSTRUCTIONS,
        auth=auth,
        lifespan=lifespan,
    )
    documents = DirectDocuments(pool, settings.home)
    state = MetaState(
        settings=settings,
        registry=registry,
        pool=pool,
        notifier=ListChangedNotifier(),
        direct=DirectTools(
            pool,
            settings.home,
            reserved=set(META_TOOLS),
            list_limit=settings.max_listed_tools,
            documents=documents,
        ),
    )
    # Outermost: a refused call runs nothing, and every call is audited (on the stdio fast
    # path too: its answers are guarded by the same Guard, see the route below).
    guard = Guard(state.audit, state.direct.server_of)
    mcp.add_middleware(guard)
    mcp.add_middleware(_ScrubErrors(settings.home))
    state.notifier.install(mcp)
    mcp.add_provider(state.direct)
    mcp.add_provider(documents)  # their resources and prompts, mounted with their tools
    add_conversion_tools(mcp, state, as_task=enable_tasks(mcp))
    generated_route = add_registry_tools(mcp, state)
    add_adding_tools(mcp, state)
    add_find_tools(mcp, state.registry, state.direct, state.search.searched)
    watch_children(lambda: len(pool.live()))
    # The registry page and /metrics (HTTP only; imported here: stdio never serves them).
    from metaserver.web import add_page

    add_page(mcp, state)

    # Mounted after the meta-tools, which therefore come first in tools/list.
    if settings.expose_direct_tools:
        try:
            state.direct.sync(state.registry)
        except MetaServerError as exc:  # serve the meta-tools even with a broken registry
            logger.error("registered servers were not mounted: %s", exc)
        mcp.add_middleware(_SyncOnList(state.direct, state.registry))

    def route(name: str, arguments: Any) -> FastCall | None:
        if settings.expose_direct_tools:
            call = state.direct.fast_call(name)
            if call is not None:
                return call
        return generated_route(name, arguments)

    return mcp, guarded_route(route, guard)


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
    """Re-reads the registry before each tools/list (and resources/list, templates, prompts),
    so servers registered by another process (``metaserver convert``) are listed without a
    restart."""

    def __init__(self, direct: DirectTools, registry: Registry) -> None:
        self._direct = direct
        self._registry = registry

    def _sync(self) -> None:
        try:
            self._direct.sync(self._registry)
        except MetaServerError as exc:
            logger.error("could not re-read the registry: %s", exc)

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        self._sync()
        result: list[Tool] = await call_next(context)
        return result

    async def on_list_resources(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        self._sync()
        return await call_next(context)

    async def on_list_resource_templates(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        self._sync()
        return await call_next(context)

    async def on_list_prompts(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        self._sync()
        return await call_next(context)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` exposes the server to this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # any other name may resolve anywhere


async def run(
    settings: Settings,
    transport: Literal["stdio", "http"],
    host: str,
    port: int,
    log_format: LogFormat = "text",
) -> None:
    """Serve the meta-server until it is stopped.

    Args:
        settings: the configuration.
        transport: ``stdio``, or ``http`` (streamable HTTP at ``/mcp``).
        host: HTTP only: the address to bind; a non-loopback one requires authentication
            (``auth.token``, ``auth.issuer`` or a stored token).
        port: HTTP only: the port to bind.
        log_format: ``text``, or ``json`` (one object a line); both carry the trace id.

    Raises:
        UserError: a non-loopback HTTP bind without a token.
    """
    configure_logging(log_format)  # stderr: stdout is the MCP stream under stdio
    tracing.configure()  # spans for conversions and calls; exported only to an OTLP endpoint
    registry = Registry(settings.registry_path)
    authenticated = transport == "http" and auth_configured(settings.auth, TokenStore(registry))
    if transport == "http" and not is_loopback(host) and not authenticated:
        raise UserError(
            f"refusing to serve HTTP on {host!r} without authentication: set "
            "METASERVER_AUTH__TOKEN or METASERVER_AUTH__ISSUER, create a token (`metaserver "
            "token create`), or bind 127.0.0.1"
        )
    if transport == "http" and not is_loopback(host) and not settings.http.allowed_hosts:
        logger.warning(
            "serving on %s: only requests whose Host is a loopback name are accepted (others "
            "get 421); list the names remote clients use in METASERVER_HTTP__ALLOWED_HOSTS",
            host,
        )
    mcp, route = build_served(settings)
    oauth, rate = settings.auth.issuer is not None, settings.auth.calls_per_minute
    if transport == "stdio":
        # As run_stdio_async, answering lines that are not JSON-RPC, proxied calls fast.
        await run_stdio(mcp, route)
        return
    await mcp.run_http_async(
        show_banner=False,
        middleware=[
            ASGIMiddleware(BoundedBodies),
            # OAuth mode keeps FastMCP's challenge, which names the resource metadata.
            *([ASGIMiddleware(BearerErrors)] if authenticated and not oauth else []),
            *(
                [ASGIMiddleware(HttpQuota, rate=CallRate(rate), audit=AuditLog(registry))]
                if authenticated
                else []
            ),
        ],
        transport="http",
        host=host,
        port=port,
        path="/mcp",
        # DNS-rebinding protection: Host must be loopback (or the host bound, when one is
        # named) or one of http.allowed_hosts, and a foreign Origin gets 403. FastMCP ships
        # with this off.
        host_origin_protection=True,
        allowed_hosts=settings.http.allowed_hosts,
        # No uvicorn logging config: its records reach the root logger, on stderr.
        uvicorn_config={"log_config": None, "access_log": False},
    )


def _sweep(settings: Settings, registry: Registry) -> None:
    try:
        deleted = sweep_home(settings, registry)
    except (MetaServerError, OSError) as exc:  # a start never fails for a leftover
        logger.warning("sweeping the home's leftovers failed: %s", exc)
        return
    if deleted:
        logger.info("removed %d directories no registered version uses", len(deleted))
