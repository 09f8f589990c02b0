"""The stores of built environments and fetched trees, kept within their one disk budget
(:mod:`.store_budget`), and the shared files only evicted entries linked, swept."""

from __future__ import annotations

from metaserver.agents.environment.cache import EnvironmentCache
from metaserver.agents.environment.shared_files import sweep_objects
from metaserver.agents.fetch.workspace_cache import WorkspaceCache
from metaserver.agents.store_budget import enforce_budget
from metaserver.settings import Settings


def trim_stores(settings: Settings) -> None:
    """Evict the least recently used entries of both stores past ``settings.store_max_mb``."""
    entries = EnvironmentCache(settings.environment_store).entries()
    entries += WorkspaceCache(settings.workspace_store).entries()
    enforce_budget(entries, settings.store_max_mb * 1_000_000)
    # Files only the evicted entries (or removed servers) linked are garbage now.
    sweep_objects(settings.shared_files)
