"""A proxied call of a registered tool: every one, on FastMCP's path and on the stdio fast
path (:mod:`metaserver.server.fast_calls`), is made by the same two functions (issue 31).

- :meth:`~metaserver.auth.guard.Guard.guarded`: the principal's role and server glob, and
  the call's audit row. FastMCP's middleware chain calls it on the full path;
  :func:`guarded_route` wraps every fast-path answer in it. Both read the principal the same
  way (:func:`~metaserver.auth.context.current_principal`): over HTTP the request's access
  token, on stdio none, so the local user. The fast path is installed on stdio only, and the
  call-rate quota is an HTTP request's, refused before the MCP layer
  (:mod:`metaserver.auth.http_quota`); the conversion quota concerns ``convert_repo`` alone.
- :func:`proxied_result`: the arguments checked against the registered schema, the child's
  call in a ``call`` span with its counters (:func:`~metaserver.telemetry.calls.observed_call`),
  and the child's result made the meta-server's (a child error is a :class:`ToolError`).
  The direct tools (``GeneratedTool.run``) and ``call_generated`` call it, whichever path
  brought the call.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import mcp_types
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult

from metaserver.auth.guard import Guard
from metaserver.children.pool import ChildPool
from metaserver.registry.records import ServerRecord
from metaserver.server.fast_calls import FastCall, FastRoute
from metaserver.server.public import public_message
from metaserver.telemetry.calls import observed_call


@functools.lru_cache(maxsize=4096)
def _validator(schema_text: str) -> Any:
    """A compiled validator per distinct schema: checking a schema costs more than a call."""
    import jsonschema  # type: ignore[import-untyped]  # on the first call, not at start

    schema = json.loads(schema_text)
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        return None
    return validator_class(schema)


def schema_key(schema: dict[str, Any]) -> str:
    """The text that keys ``schema``'s compiled validator (compute it once per tool)."""
    return json.dumps(schema, sort_keys=True)


def check_arguments(
    schema: dict[str, Any], arguments: dict[str, Any], key: str | None = None
) -> str | None:
    """Why ``arguments`` do not satisfy ``schema``, or None when they do (or it is unusable).

    Args:
        schema: the tool's registered JSON schema.
        arguments: the call's arguments.
        key: ``schema_key(schema)``, when the caller keeps it (a call need not dump the
            schema again to find its validator).
    """
    validator = _validator(key if key is not None else schema_key(schema))
    if validator is None:
        # A schema the generator wrote but jsonschema rejects: the generated server's own
        # signature check still guards the call.
        return None
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

    error = best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"invalid arguments{' at ' + where if where else ''}: {error.message}"


def child_result(
    result: mcp_types.CallToolResult, home: Path, renamed: tuple[str, str] | None = None
) -> ToolResult:
    """The meta-server's result for a child's result; a child error raises :class:`ToolError`.

    Content and structured content pass through unchanged; of the child's ``_meta`` only the
    FastMCP part is kept (it says the value is wrapped as ``{"result": ...}``, so FastMCP
    clients unwrap ``.data``); the rest describes the child, not this server.

    Args:
        result: the child's result.
        home: the metaserver home (scrubbed from messages).
        renamed: (the child's tool name, the name the client called): an error naming the
            child's tool names the client's instead (``tool 'mean'`` -> ``tool 'stats_mean'``).
    """
    if result.is_error:
        text = " ".join(
            block.text for block in result.content if isinstance(block, mcp_types.TextContent)
        )
        text = text or "the tool failed"
        if renamed is not None:
            inner, called = renamed
            text = text.replace(f"tool {inner!r}", f"tool {called!r}")
        raise ToolError(public_message(text, home))
    fastmcp_meta = (result.meta or {}).get("fastmcp")
    return ToolResult(
        content=list(result.content),
        structured_content=result.structured_content,
        meta={"fastmcp": fastmcp_meta} if isinstance(fastmcp_meta, dict) else None,
    )


async def proxied_result(
    pool: ChildPool,
    record: ServerRecord,
    tool: str,
    arguments: dict[str, Any],
    schema: dict[str, Any],
    home: Path,
    *,
    key: str | None = None,
    renamed: tuple[str, str] | None = None,
) -> ToolResult:
    """Call ``tool`` of ``record`` through ``pool`` (see the module's docstring).

    Args:
        pool: the children that serve the calls.
        record: the server version called.
        tool: the child's name of the tool.
        arguments: the call's arguments.
        schema: the tool's registered JSON schema, checked here.
        home: the metaserver home (scrubbed from messages).
        key: ``schema_key(schema)``, when the caller keeps it (as :func:`check_arguments`).
        renamed: as :func:`child_result`'s.

    Raises:
        ToolError: arguments the schema refuses, or the child's error result.
    """
    problem = check_arguments(schema, arguments, key)
    if problem is not None:
        raise ToolError(public_message(problem, home))
    result = await observed_call(record.name, tool, pool.call(record, tool, arguments))
    return child_result(result, home, renamed=renamed)


def guarded_route(route: FastRoute, guard: Guard) -> FastRoute:
    """``route`` whose every answer is checked and audited by ``guard`` as FastMCP's path
    checks and audits it: same principal, tool name, arguments, target and outcome."""

    def guarded(name: str, arguments: Any) -> FastCall | None:
        # Arguments that are no object are FastMCP's to refuse, and the Guard's to audit.
        if arguments is not None and not isinstance(arguments, dict):
            return None
        call = route(name, arguments)
        if call is None:
            return None
        # Bound now: the answer runs in a task of its own, after the next message is read.
        answer: FastCall = call

        async def checked(given: dict[str, Any]) -> mcp_types.CallToolResult:
            return await guard.guarded(name, given, lambda: answer(given))

        return checked

    return guarded
