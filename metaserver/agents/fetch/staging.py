"""Leases on staging entries, so that what a killed conversion left there is cleaned later.

A conversion fetches into ``staging/fetch-<token>`` and moves the tree out when the fetch is
done. Before it starts, it writes ``staging/fetch-<token>.owner`` with its pid and that
process's start time (a pid alone may be reused). A later conversion deletes every staging
entry whose owner is gone, every entry with no owner file that is older than a grace period
(left by a version without leases), and owner files whose entry has long gone.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

from metaserver.fs import remove_tree

logger = logging.getLogger(__name__)

OWNER_SUFFIX = ".owner"
ORPHAN_GRACE_SECONDS = 600.0


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    # Field 22 of stat(5) is starttime; fields[0] here is field 3 (the state).
    return None if fields[0] in ("Z", "X") else fields[19]


def owner_alive(owner_file: Path) -> bool:
    """Whether the process that wrote ``owner_file`` still runs (unreadable: assume yes)."""
    try:
        owner = json.loads(owner_file.read_text())
        pid, started = int(owner["pid"]), str(owner["start"])
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError):
        # Half-written by a process killed while writing it: judged by age instead.
        return time.time() - _mtime(owner_file) < ORPHAN_GRACE_SECONDS
    return process_start(pid) == started


def sweep_staging(staging: Path) -> list[Path]:
    """Delete the staging entries of conversions that are no longer running.

    Returns:
        The paths deleted.
    """
    if not staging.is_dir():
        return []
    deleted = []
    now = time.time()
    for path in sorted(staging.iterdir()):
        if path.name.endswith(OWNER_SUFFIX):
            entry = path.with_name(path.name.removesuffix(OWNER_SUFFIX))
            if not owner_alive(path):
                if entry.exists() or entry.is_symlink():
                    remove_tree(entry)
                    deleted.append(entry)
                path.unlink(missing_ok=True)
            elif not entry.exists() and now - _mtime(path) >= ORPHAN_GRACE_SECONDS:
                path.unlink(missing_ok=True)  # its tree was moved out; the owner lives on
        elif not path.with_name(path.name + OWNER_SUFFIX).exists():
            if now - _mtime(path) >= ORPHAN_GRACE_SECONDS:
                remove_tree(path)
                deleted.append(path)
    for path in deleted:
        logger.info("removed %s, left by a conversion that is no longer running", path)
    return deleted


@contextlib.contextmanager
def staging_lease(entry: Path) -> Iterator[Path]:
    """Own staging ``entry`` while the block runs; first sweep what dead owners left.

    On the way out the lease is dropped if ``entry`` is gone (a failed fetch removes it), and
    kept if not: the caller is about to move the tree out, and if it is killed first, the
    lease says whose the tree was. A later sweep removes a lease whose entry has gone.
    """
    sweep_staging(entry.parent)
    entry.parent.mkdir(parents=True, exist_ok=True)
    owner = entry.with_name(entry.name + OWNER_SUFFIX)
    start = process_start(os.getpid())
    partial = owner.with_name(owner.name + ".partial")
    # Written aside and renamed, so the owner file is never seen half-written.
    partial.write_text(json.dumps({"pid": os.getpid(), "start": start}))
    partial.replace(owner)
    try:
        yield entry
    finally:
        if not (entry.exists() or entry.is_symlink()):
            owner.unlink(missing_ok=True)


def discard_staged(entry: Path) -> None:
    """Remove a fetched tree that will not be used, and the lease that says whose it was."""
    for path in (entry, entry.with_name(entry.name + OWNER_SUFFIX)):
        remove_tree(path)


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
