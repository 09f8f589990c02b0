"""What the meta-tools share: the registry, the pool of live children, the direct tools and
the list-changed notifier, the conversion jobs and the audit log of one meta-server."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from fastmcp.exceptions import ToolError

from metaserver.auth.audit import AuditLog
from metaserver.children.pool import ChildPool
from metaserver.registry.store import Registry
from metaserver.server.direct import DirectTools
from metaserver.server.jobs import JobTable
from metaserver.server.notify import ListChangedNotifier
from metaserver.server.public import public_message
from metaserver.server.warm_search import SearchWarmer
from metaserver.settings import Settings

META_TOOLS = frozenset(
    {
        "convert_repo",
        "conversion_status",
        "cancel_conversion",
        "list_tools",
        "find_tools",
        "call_generated",
        "list_servers",
        "remove_server",
        "add_server",
        "export_server",
    }
)


@dataclass
class MetaState:
    """One meta-server's shared parts; each group of meta-tools is registered with it."""

    settings: Settings
    registry: Registry
    pool: ChildPool
    notifier: ListChangedNotifier
    direct: DirectTools
    conversions: asyncio.Semaphore = field(init=False)
    jobs: JobTable = field(default_factory=JobTable)
    audit: AuditLog = field(init=False)
    search: SearchWarmer = field(init=False)

    def __post_init__(self) -> None:
        self.conversions = asyncio.Semaphore(self.settings.max_concurrent_conversions)
        self.audit = AuditLog(self.registry, self.settings.auth.audit_retention_days)
        self.search = SearchWarmer(self.registry.path)

    def fail(self, message: str) -> ToolError:
        """The error a client sees: no host path of the home in it."""
        return ToolError(public_message(message, self.settings.home))
