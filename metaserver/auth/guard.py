"""Roles, server globs and the audit log around every tool call of the meta-server.

A FastMCP middleware, outermost: before a tool runs it checks that the request's principal
holds the role the tool needs (:data:`~metaserver.auth.roles.TOOL_ROLES`) and that the server
the call names (``call_generated``'s and ``remove_server``'s ``server``, ``add_server``'s
``name``, a direct ``<server>_<tool>`` tool's server) is within its glob; a refusal is an MCP
error that says what is missing. Every call, refused or not, becomes one audit row. The
meta-tools a principal's role cannot call, and direct tools of servers outside its glob, are
also left out of ``tools/list``; the meta-tools that
list servers and tools filter their own answers. The stdio fast path, which answers proxied
calls beside the middleware chain, calls the same :meth:`Guard.guarded`
(:mod:`metaserver.server.proxied_call`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult

from metaserver.auth.audit import AuditLog, Outcome
from metaserver.auth.context import current_principal
from metaserver.auth.quotas import QUOTA
from metaserver.auth.roles import Principal, role_needed

T = TypeVar("T")

# The meta-tools whose arguments name the server they act on.
_SERVER_ARGUMENT = {"call_generated": "server", "remove_server": "server", "add_server": "name"}


def refusal(principal: Principal, tool: str, server: str | None) -> str | None:
    """Why ``principal`` may not call ``tool`` on ``server``, or None when it may."""
    needed = role_needed(tool)
    if not principal.may(needed):
        return (
            f"forbidden: {tool} needs scope '{needed}'; {principal.name} has "
            f"'{principal.role}' (an admin gives a token more with `metaserver token create`)"
        )
    if server is not None and not principal.sees(server):
        return (
            f"forbidden: {principal.name} may not use server {server!r} (its servers: "
            f"{principal.servers})"
        )
    return None


class Guard(Middleware):
    """See the module's docstring; ``server_of`` names a direct tool's server (else None)."""

    def __init__(self, audit: AuditLog, server_of: Callable[[str], str | None]) -> None:
        self._audit = audit
        self._server_of = server_of

    def _target(self, tool: str, arguments: dict[str, Any]) -> str | None:
        key = _SERVER_ARGUMENT.get(tool)
        if key is not None:
            value = arguments.get(key)
            return value if isinstance(value, str) else None
        return self._server_of(tool)

    def _record(
        self,
        principal: Principal,
        tool: str,
        outcome: Outcome,
        target: str | None,
        started: float,
        arguments: Any,
        detail: str | None = None,
    ) -> None:
        # Queued: the answer does not wait for the row's commit (auth.audit).
        self._audit.record_soon(
            principal.name,
            tool,
            outcome,
            target=target,
            seconds=time.monotonic() - started,
            arguments=arguments,
            detail=detail,
        )

    async def guarded(
        self, tool: str, arguments: dict[str, Any], run: Callable[[], Awaitable[T]]
    ) -> T:
        """Check the request's principal may call ``tool`` with ``arguments``, await ``run``
        (the call), and write the call's audit row, refused or not.

        The one guard of every tool call: this middleware's, and the stdio fast path's
        (:mod:`metaserver.server.proxied_call`), which answers beside the middleware chain.

        Raises:
            ToolError: refused (the row says why); or what ``run`` raised.
        """
        principal = current_principal()
        target = self._target(tool, arguments)
        started = time.monotonic()
        why = refusal(principal, tool, target)
        if why is not None:
            self._record(principal, tool, "refused", target, started, arguments, why)
            raise ToolError(why)
        try:
            result = await run()
        except Exception as exc:
            if not str(exc).startswith(QUOTA):  # a quota refusal is audited where it is made
                detail = type(exc).__name__
                self._record(principal, tool, "error", target, started, arguments, detail)
            raise
        outcome, target = _outcome(tool, result, target)
        self._record(principal, tool, outcome, target, started, arguments)
        return result

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        return await self.guarded(
            context.message.name, context.message.arguments or {}, lambda: call_next(context)
        )

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        tools: list[Tool] = await call_next(context)
        principal = current_principal()
        if principal.role == "admin" and principal.servers is None:
            return tools
        return [
            tool
            for tool in tools
            if principal.may(role_needed(tool.name))
            and ((server := self._server_of(tool.name)) is None or principal.sees(server))
        ]


def _outcome(tool: str, result: Any, target: str | None) -> tuple[Outcome, str | None]:
    """A call that returned: ``error`` when it is an ``isError`` result or a failed
    conversion's report; a conversion's target is the server it made."""
    if not isinstance(result, ToolResult):
        return "ok", target  # an MCP task: its conversion is audited when it ends
    if tool == "convert_repo" and isinstance(result.structured_content, dict):
        report = result.structured_content
        server = report.get("server") if isinstance(report.get("server"), str) else None
        return ("ok" if report.get("status") == "success" else "error"), server
    return "ok", target
