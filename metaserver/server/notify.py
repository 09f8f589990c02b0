"""``notifications/tools/list_changed`` in both MCP protocol eras (ARCHITECTURE.md decision 8).

FastMCP 4.1.6 sends nothing by itself when tools are added or removed, so each change is
announced three ways (docs/ARCHITECTURE.md, "FastMCP facts"):

1. on the stream of the request that made the change (``ctx.send_notification``), which
   reaches the caller in either era;
2. to every other legacy-era (2025-11-25) connection seen in an earlier request, over the
   connection's standing channel;
3. on a ``subscriptions/listen`` bus for 2026-07-28 clients, which have no standing channel.
   Serving that method needs FastMCP's private ``_mcp_server``; if that ever fails, the
   notifier degrades to (1) and (2).
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from typing import Any

import anyio
import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger(__name__)

# Remembered connections are bounded: a long-running HTTP server sees many come and go.
_MAX_SESSIONS = 256
_SEND_TIMEOUT = 2.0


class ListChangedNotifier:
    """Announces tool-list changes to the caller, other legacy sessions and listeners."""

    def __init__(self) -> None:
        """Create a notifier that knows no session yet; :meth:`install` attaches it."""
        # Keyed by the SDK connection (a ServerSession is built per request; its connection
        # is what lasts), holding the latest session object to send through.
        self._sessions: OrderedDict[int, tuple[object, Any]] = OrderedDict()
        self._bus: Any = None

    def install(self, mcp: FastMCP[Any]) -> None:
        """Remember sessions of ``mcp``'s requests, and serve ``subscriptions/listen``."""
        mcp.add_middleware(_RememberSessions(self))
        try:
            from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

            bus = InMemorySubscriptionBus()
            mcp._mcp_server.add_request_handler(
                "subscriptions/listen",
                mcp_types.SubscriptionsListenRequestParams,
                ListenHandler(bus),
            )
        except Exception as exc:  # a private API: degrade, do not fail the server
            logger.warning(
                "subscriptions/listen is not served (%s); list changes reach "
                "modern-era clients only in the request that made them",
                exc,
            )
            return
        self._bus = bus

    def remember(self, session: Any) -> None:
        """Keep ``session`` (a legacy-era one) so later changes can be pushed to it."""
        if getattr(session, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return  # sessionless: nothing outlives the request
        connection = getattr(session, "_connection", session)
        key = id(connection)
        self._sessions[key] = (connection, session)
        self._sessions.move_to_end(key)
        while len(self._sessions) > _MAX_SESSIONS:
            self._sessions.popitem(last=False)

    async def notify(self, ctx: Context | None = None) -> None:
        """Send ``notifications/tools/list_changed`` everywhere it can go.

        Args:
            ctx: the request that changed the tools, if any; it is told on its own stream.
        """
        current: object | None = None
        if ctx is not None:
            with contextlib.suppress(Exception):
                current = getattr(ctx.session, "_connection", ctx.session)
                await ctx.send_notification(mcp_types.ToolListChangedNotification())
        others = [
            (key, session)
            for key, (connection, session) in self._sessions.items()
            if connection is not current
        ]
        # Concurrently, each bounded: one stuck connection must not hold up the others.
        async with anyio.create_task_group() as group:
            for key, session in others:
                group.start_soon(self._push, key, session)
        if self._bus is not None:
            try:
                from mcp.server.subscriptions import ToolsListChanged

                await self._bus.publish(ToolsListChanged())
            except Exception as exc:
                logger.warning("could not publish a tools list change: %s", exc)

    async def tell(self, ctx: Context) -> None:
        """Send ``notifications/tools/list_changed`` on the stream of ``ctx``'s request, unless
        :meth:`notify` already reached its (remembered, legacy-era) connection."""
        with contextlib.suppress(Exception):
            connection = getattr(ctx.session, "_connection", ctx.session)
            if id(connection) in self._sessions:
                return
            await ctx.send_notification(mcp_types.ToolListChangedNotification())

    async def _push(self, key: int, session: Any) -> None:
        with anyio.move_on_after(_SEND_TIMEOUT):
            try:
                await session.send_notification(mcp_types.ToolListChangedNotification())
                return
            except Exception as exc:
                logger.debug("dropping a session that could not be notified: %s", exc)
        self._sessions.pop(key, None)  # closed or stuck: forget it


class _RememberSessions(Middleware):
    def __init__(self, notifier: ListChangedNotifier) -> None:
        self._notifier = notifier

    async def on_request(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        ctx = context.fastmcp_context
        if ctx is not None and ctx.request_context is not None:
            with contextlib.suppress(Exception):
                self._notifier.remember(ctx.session)
        return await call_next(context)
