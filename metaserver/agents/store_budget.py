"""One disk budget for the two stores of reusable things: built environments and fetched trees.

Both stores only save time (an evicted entry is fetched or built again), yet each conversion
of a new source adds to them: an environment with FastMCP is about 100 MB. So after each
conversion's environment stage the stores are trimmed to ``Settings.store_max_mb``, least
recently used entries first. An entry records its size when stored (``usage.json``) and its
last use as that file's modification time, touched on every restore, so trimming reads one
small file per entry instead of walking trees.

Entries used within the last :data:`IN_USE_SECONDS` are never evicted: a running conversion
may be copying from them. A conversion that restores from an entry being deleted falls back
to fetching or building, as on any unusable entry. Registered servers never depend on the
stores: their environments hold their own links or copies.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from metaserver.fs import remove_tree, tree_bytes

__all__ = ["IN_USE_SECONDS", "StoreEntry", "enforce_budget", "mark_used", "measure"]

logger = logging.getLogger(__name__)

USAGE_FILE = "usage.json"
IN_USE_SECONDS = 3600.0


@dataclass(frozen=True)
class StoreEntry:
    path: Path
    bytes: int
    used: float  # seconds since the epoch


def measure(entry: Path) -> None:
    """Record ``entry``'s size and mark it used now (call it when the entry is stored)."""
    try:
        (entry / USAGE_FILE).write_text(json.dumps({"bytes": tree_bytes(entry)}))
    except OSError as err:
        logger.debug("could not record the size of %s: %s", entry, err)


def mark_used(entry: Path) -> None:
    """Mark ``entry`` used now (call it on every restore)."""
    try:
        os.utime(entry / USAGE_FILE)
    except FileNotFoundError:
        measure(entry)  # stored before sizes were recorded
    except OSError as err:
        logger.debug("could not mark %s used: %s", entry, err)


def read_entry(entry: Path) -> StoreEntry:
    """``entry``'s recorded size and last use (measured now if it has no record)."""
    usage = entry / USAGE_FILE
    if not usage.is_file():
        measure(entry)
    try:
        size = int(json.loads(usage.read_text())["bytes"])
        used = usage.stat().st_mtime
    except (OSError, ValueError, KeyError, TypeError):
        size, used = tree_bytes(entry), 0.0
    return StoreEntry(entry, size, used)


def enforce_budget(
    entries: list[Path], max_bytes: int, now: float | None = None
) -> list[StoreEntry]:
    """Delete the least recently used of ``entries`` until they fit in ``max_bytes``.

    Args:
        entries: the entries of every store sharing the budget.
        max_bytes: the budget.
        now: the current time (for tests); entries used since ``now - IN_USE_SECONDS`` stay.

    Returns:
        The entries deleted.
    """
    now = time.time() if now is None else now
    known = sorted((read_entry(path) for path in entries), key=lambda e: e.used)
    total = sum(entry.bytes for entry in known)
    deleted: list[StoreEntry] = []
    for entry in known:
        if total <= max_bytes:
            break
        if now - entry.used < IN_USE_SECONDS:
            break  # this one and all after it are in use
        remove_tree(entry.path)
        total -= entry.bytes
        deleted.append(entry)
    if deleted:
        freed = sum(entry.bytes for entry in deleted) / 1e6
        logger.info(
            "store over its budget: removed %d least recently used entries (%.0f MB); %.0f MB kept",
            len(deleted),
            freed,
            total / 1e6,
        )
    return deleted
