"""Which tool validation is calling now, for whoever watches a conversion.

The meta-server's ``conversion_status`` and its progress heartbeat name the tool being
validated (metaserver/server/jobs.py). A context variable carries the watcher, so the
pipeline's signature stays as it is and concurrent conversions (each in its own asyncio
task, hence its own context) never see each other's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

Watcher = Callable[[str | None], None]

watcher: ContextVar[Watcher | None] = ContextVar("validation_watcher", default=None)


def calling(tool: str | None) -> None:
    """Tell the watcher, if any, that ``tool`` is being called now (None: no tool)."""
    watch = watcher.get()
    if watch is not None:
        watch(tool)
