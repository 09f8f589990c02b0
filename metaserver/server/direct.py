"""Registered tools exposed directly on the meta-server as ``<server>_<tool>``.

Each one is a :class:`GeneratedTool`: a FastMCP ``Tool`` whose ``run()`` validates the
arguments against the registered schema (FastMCP does not validate a custom Tool's
``parameters``, docs/ARCHITECTURE.md, "FastMCP facts") and calls the child through the same
:class:`~metaserver.children.pool.ChildPool` that ``call_generated`` uses, so each server
has one child whichever way it is called. Only a server's newest version is exposed directly;
an older one is reached through ``call_generated(server="name@version", ...)``. What both
paths share (the argument check, the traced child call, the translation of its result) is
:func:`~metaserver.server.proxied_call.proxied_result`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp_types
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool, ToolResult
from fastmcp.utilities.components import FastMCPComponent
from fastmcp.utilities.versions import VersionSpec
from pydantic import PrivateAttr

from metaserver.children.pool import ChildPool
from metaserver.exceptions import NotFoundError
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry
from metaserver.server.documents import DirectDocuments
from metaserver.server.fast_calls import FastCall, call_result
from metaserver.server.proxied_call import proxied_result, schema_key

logger = logging.getLogger(__name__)

# SEP-986: what an MCP tool name may be.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


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
        return await proxied_result(
            self._pool,
            self._record,
            self._tool,
            arguments,
            self.parameters,
            self._home,
            key=self._schema_key,
            renamed=(self._tool, self.name),
        )

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
        # What is mounted: direct name -> (server, tool). Each FastMCP Tool is built on its
        # first use (a call, a listing): 20,000 of them cost seconds of a start that lists
        # none (issue 31).
        self._specs: dict[str, tuple[str, str]] = {}
        self._tools: dict[str, GeneratedTool] = {}
        # server name -> (its registration time, the names mounted for it)
        self._mounted: dict[str, tuple[float, list[str]]] = {}
        # The mounted servers' records. A start mounts by name only (one light query): the
        # records of 20,000 tools (their schemas, evidence, requests parsed and validated)
        # took 1.9 s of it; a server's is read on its first use, all of them for a listing
        # of tools, resources or prompts (issue 31).
        self._records: dict[str, ServerRecord] = {}
        self._unread: set[str] = set()
        self._registry: Registry | None = None
        if documents is not None:
            documents.before_use = self.read_all

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
        self.read_all()
        return [tool for name in list(self._specs) if (tool := self._tool(name)) is not None]

    async def _get_tool(self, name: str, version: VersionSpec | None = None) -> Tool | None:
        return self._tool(name)

    async def get_tasks(self) -> Sequence[FastMCPComponent]:
        # None of these runs as a background task (a child answers inline), and the default
        # lists every component when the tasks extension starts: every record read at each
        # start, before the first answer (issue 31).
        return []

    def _tool(self, name: str) -> GeneratedTool | None:
        tool = self._tools.get(name)
        if tool is None:
            mounted = self._specs.get(name)
            if mounted is None:
                return None
            record = self._record(mounted[0])
            spec = None if record is None else _named(record, mounted[1])
            if record is None or spec is None or name not in self._specs:
                return None  # removed, or re-registered without it, since it was mounted
            tool = self._tools[name] = GeneratedTool.build(self._pool, record, spec, self._home)
        return tool

    def _record(self, server: str) -> ServerRecord | None:
        """The record of mounted ``server``, read now if it was mounted by name only."""
        if server in self._unread and self._registry is not None:
            try:
                self._read(server, self._registry.get(server))
            except NotFoundError:
                self.unmount(server)
        return self._records.get(server)

    def _read(self, server: str, record: ServerRecord) -> None:
        self._unread.discard(server)
        if self._mounted.get(server, (None,))[0] == record.created_at:
            self._records[server] = record
            if self._documents is not None:
                self._documents.mount(record)
        else:  # registered anew since: mounted as it is now
            self.mount(record)

    def read_all(self) -> None:
        """Read the records of every server mounted by name only (one registry read)."""
        if not self._unread or self._registry is None:
            return
        records = {record.name: record for record in self._registry.list_servers()}
        for server in list(self._unread):
            record = records.get(server)
            if record is None:
                self.unmount(server)
            else:
                self._read(server, record)

    def fast_call(self, name: str) -> FastCall | None:
        """The fast-path answer of direct tool ``name``; None when none is mounted."""
        tool = self._tool(name) if name in self._specs else None
        return None if tool is None else tool.answer

    def server_of(self, name: str) -> str | None:
        """The server whose direct tool is called ``name``, None for any other name."""
        # Asked on every call (the guard's target): one lookup, not a scan of every server.
        mounted = self._specs.get(name)
        return mounted[0] if mounted is not None else None

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
        names = self._mount_names(record.name, record.created_at, [t.name for t in record.tools])
        self._records[record.name] = record
        if self._documents is not None:
            self._documents.mount(record)
        return names

    def _mount_names(self, server: str, created_at: float, tools: list[str]) -> list[str]:
        self.unmount(server)
        names: list[str] = []
        for tool in tools:
            name = direct_name(server, tool)
            if not _TOOL_NAME.match(name) or name in self._reserved or name in self._specs:
                logger.warning("not exposing %s directly: the name is invalid or taken", name)
                continue
            self._specs[name] = (server, tool)
            names.append(name)
        self._mounted[server] = (created_at, names)
        return names

    def unmount(self, server: str) -> list[str]:
        """Remove ``server``'s direct tools; returns the names removed."""
        _, names = self._mounted.pop(server, (0.0, []))
        self._records.pop(server, None)
        self._unread.discard(server)
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
        self._registry = registry
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
        if len(stale) > 8:
            # Many changed (a start): their tools' names in one light read, the records on
            # first use (the first tools/list of a start waits for no schema).
            tools = registry.tool_names()
            for name in stale:
                if name in tools:
                    self._mount_names(name, tools[name][0], tools[name][1])
                    self._unread.add(name)
            return True
        for name in stale:
            self.mount(registry.get(name))
            changed = True
        return changed


def _named(record: ServerRecord, tool: str) -> ToolRecord | None:
    return next((spec for spec in record.tools if spec.name == tool), None)
