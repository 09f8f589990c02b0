"""Registered tools exposed directly on the meta-server as ``<server>_<tool>``.

Each one is a :class:`GeneratedTool`: a FastMCP ``Tool`` whose ``run()`` validates the
arguments against the registered schema (FastMCP does not validate a custom Tool's
``parameters``, docs/ARCHITECTURE.md, "FastMCP facts") and calls the child through the same
:class:`~metaserver.children.pool.ChildPool` that ``call_generated`` uses, so each server
has one child whichever way it is called. Only a server's newest version is exposed directly;
an older one is reached through ``call_generated(server="name@version", ...)``. This module
also holds what both paths share: the argument check and the translation of a child's result
into the meta-server's result.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import mcp_types
from fastmcp.exceptions import ToolError
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool, ToolResult
from fastmcp.utilities.versions import VersionSpec
from pydantic import PrivateAttr

from metaserver.children.pool import ChildPool
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry
from metaserver.server.documents import DirectDocuments
from metaserver.server.fast_calls import FastCall, call_result
from metaserver.server.public import public_message
from metaserver.telemetry.calls import observed_call

logger = logging.getLogger(__name__)

# SEP-986: what an MCP tool name may be.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@functools.lru_cache(maxsize=4096)
def _validator(schema_text: str) -> Any:
    """A compiled validator per distinct schema: checking a schema costs more than a call."""
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
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
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


class GeneratedTool(Tool):
    """One registered tool, served as ``<server>_<tool>`` through the shared child pool."""

    _pool: ChildPool = PrivateAttr()
    _record: ServerRecord = PrivateAttr()
    _tool: str = PrivateAttr()
    _home: Path = PrivateAttr()
    _schema_key: str | None = PrivateAttr(default=None)  # on its first call, not at mount

    @classmethod
    def build(
        cls, pool: ChildPool, record: ServerRecord, tool: ToolRecord, home: Path
    ) -> GeneratedTool:
        """The direct tool for ``tool`` of ``record``."""
        schema = dict(tool.input_schema)
        schema.setdefault("type", "object")
        made = cls(
            name=direct_name(record.name, tool.name),
            description=tool.description,
            parameters=schema,
            meta={"metaserver": {"server": record.name, "tool": tool.name}},
        )
        made._pool, made._record, made._tool, made._home = pool, record, tool.name, home
        return made

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Validate ``arguments``, call the child, and return its result."""
        if self._schema_key is None:
            self._schema_key = schema_key(self.parameters)
        problem = check_arguments(self.parameters, arguments, self._schema_key)
        if problem is not None:
            raise ToolError(problem)
        call = self._pool.call(self._record, self._tool, arguments)
        result = await observed_call(self._record.name, self._tool, call)
        return child_result(result, self._home, renamed=(self._tool, self.name))

    async def answer(self, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """:meth:`run`'s result as the wire result (the stdio fast path, ``fast_calls``)."""
        return call_result(await self.run(arguments))


def direct_name(server: str, tool: str) -> str:
    """The name under which ``tool`` of ``server`` is exposed."""
    return f"{server}_{tool}"


class DirectTools(Provider):
    """The registered servers' tools, served as direct ``<server>_<tool>`` tools.

    A provider of its own rather than ``FastMCP.add_tool``: FastMCP's local provider checks
    every existing tool on each addition (quadratic: 20,000 tools took minutes to mount),
    while this keeps a dict, so mounting is linear and lookup is constant.
    """

    def __init__(
        self,
        pool: ChildPool,
        home: Path,
        reserved: set[str],
        list_limit: int = 1000,
        documents: DirectDocuments | None = None,
    ):
        """Manage direct tools.

        Args:
            pool: the children that serve the calls.
            home: the metaserver home (scrubbed from messages).
            reserved: names never to take (the meta-tools): a generated tool cannot shadow them.
            list_limit: past this many tools, ``tools/list`` shows only the meta-tools (the
                direct tools stay callable by name): clients degrade past ~100 listed tools,
                and a listing of thousands costs seconds to serialise.
            documents: where each mounted server's resources and prompts are passed through
                (mounted and unmounted with its tools).
        """
        super().__init__()
        self._list_limit = list_limit
        self._warned = False
        self._pool = pool
        self._home = home
        self._reserved = reserved
        self._documents = documents
        # What is mounted, by direct name; each FastMCP Tool is built on its first use (a
        # call, a listing): 20,000 of them cost seconds of a start that lists none (issue 31).
        self._specs: dict[str, tuple[ServerRecord, ToolRecord]] = {}
        self._tools: dict[str, GeneratedTool] = {}
        # server name -> (its registration time, the names mounted for it)
        self._mounted: dict[str, tuple[float, list[str]]] = {}

    async def _list_tools(self) -> Sequence[Tool]:
        if len(self._specs) > self._list_limit:
            if not self._warned:
                self._warned = True
                logger.warning(
                    "%d direct tools exceed METASERVER_MAX_LISTED_TOOLS=%d: listing only the "
                    "meta-tools (list_tools and call_generated reach every tool)",
                    len(self._specs),
                    self._list_limit,
                )
            return []
        return [self._tool(name) for name in self._specs]

    async def _get_tool(self, name: str, version: VersionSpec | None = None) -> Tool | None:
        return self._tool(name) if name in self._specs else None

    def _tool(self, name: str) -> GeneratedTool:
        tool = self._tools.get(name)
        if tool is None:
            record, spec = self._specs[name]
            tool = self._tools[name] = GeneratedTool.build(self._pool, record, spec, self._home)
        return tool

    def fast_call(self, name: str) -> FastCall | None:
        """The fast-path answer of direct tool ``name``; None when none is mounted."""
        return self._tool(name).answer if name in self._specs else None

    def server_of(self, name: str) -> str | None:
        """The server whose direct tool is called ``name``, None for any other name."""
        return next((s for s, names in self.mounted().items() if name in names), None)

    def mounted(self) -> dict[str, list[str]]:
        """Mounted tool names by server."""
        return {server: list(names) for server, (_, names) in self._mounted.items()}

    def mount(self, record: ServerRecord) -> list[str]:
        """Expose ``record``'s tools, replacing any mounted earlier for that server.

        A tool whose name would be invalid, or taken by a meta-tool or another server's tool,
        is left out (with a warning); it stays reachable through ``call_generated``.

        Returns:
            The names mounted.
        """
        self.unmount(record.name)
        names: list[str] = []
        for tool in record.tools:
            name = direct_name(record.name, tool.name)
            if not _TOOL_NAME.match(name) or name in self._reserved or name in self._specs:
                logger.warning("not exposing %s directly: the name is invalid or taken", name)
                continue
            self._specs[name] = (record, tool)
            names.append(name)
        self._mounted[record.name] = (record.created_at, names)
        if self._documents is not None:
            self._documents.mount(record)
        return names

    def unmount(self, server: str) -> list[str]:
        """Remove ``server``'s direct tools; returns the names removed."""
        _, names = self._mounted.pop(server, (0.0, []))
        for name in names:
            self._specs.pop(name, None)
            self._tools.pop(name, None)
        if self._documents is not None:
            self._documents.unmount(server)
        return names

    def sync(self, registry: Registry) -> bool:
        """Make the mounts match the registry (the source of truth); True if anything changed.

        Servers registered or removed by another process (``metaserver convert``) appear or
        disappear here without a restart. Only changed servers are read in full.
        """
        current = registry.registration_times()
        changed = False
        for server in [s for s in self._mounted if s not in current]:
            self.unmount(server)
            changed = True
        stale = [
            name
            for name, created_at in current.items()
            if name not in self._mounted or self._mounted[name][0] != created_at
        ]
        # Many changed (a start): one read of every server, not one connection per server.
        newest = {r.name: r for r in registry.list_servers()} if len(stale) > 8 else {}
        for name in stale:
            record = newest.get(name)
            self.mount(record if record is not None else registry.get(name))
            changed = True
        return changed
