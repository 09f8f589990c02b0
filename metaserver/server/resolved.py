"""Registered versions as ``call_generated`` resolves them, kept while the registry is unchanged.

Resolving a ref read the registry for every call (open SQLite, check the schema, parse the
record with all its tools): more than the hop to the child itself (issue 31). The records are
kept here, and a kept one is used while SQLite's ``PRAGMA data_version`` on one standing
connection stays the same: it changes whenever any other connection (another process's
``metaserver convert``, or this server's own registry writes, which open connections of their
own) commits a change, so a registration or removal is seen by the very next call. The audit
log writes a row to the same file for every call, so a changed counter alone says little: the
records are dropped only when what resolving reads changed too (:data:`_SERVED`: the tool
generation the registry's triggers keep, and the versions table's rows).
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry

# A bound on the kept records (each holds a server's tools): enough for every server in use.
MAX_KEPT = 4096

# What a resolved record is read from: the search generation (bumped by triggers on any tool
# change and any server's insert, removal or new latest) and the versions' rows, which are
# only ever inserted and deleted (an old version with no tools goes without a generation
# change; the sum of their times tells a replaced row from its twin).
_SERVED = (
    "SELECT (SELECT generation FROM search_state WHERE id = 0),"
    " (SELECT count(*) FROM versions), (SELECT max(rowid) FROM versions),"
    " (SELECT total(created_at) FROM versions)"
)


class ResolvedRecords:
    """``registry.resolve`` with its answers kept until the registry changes."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._connection: sqlite3.Connection | None = None
        self._version: int | None = None
        self._served: tuple[Any, ...] | None = None
        self._kept: dict[str, ServerRecord] = {}

    def resolve(self, ref: str) -> ServerRecord:
        """The version ``ref`` names (``name`` or ``name@version``), as the registry says now.

        Raises:
            NotFoundError: no such server or version (never kept).
        """
        version = self._data_version()
        if version is None or version != self._version:
            served = self._served_now() if version is not None else None
            if served is None or served != self._served:
                self._kept.clear()
            self._version, self._served = version, served
        record = self._kept.get(ref)
        if record is None:
            record = self._registry.resolve(ref)
            if version is not None:
                if len(self._kept) >= MAX_KEPT:
                    self._kept.clear()
                self._kept[ref] = record
        return record

    def close(self) -> None:
        """Close the standing connection (a later :meth:`resolve` opens another)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _served_now(self) -> tuple[Any, ...] | None:
        """The state of what resolving reads (:data:`_SERVED`), or None when unreadable."""
        if self._connection is None:
            return None
        try:
            return tuple(self._connection.execute(_SERVED).fetchone())
        except sqlite3.Error:
            return None

    def _data_version(self) -> int | None:
        """The registry's change counter, or None when it cannot be read (nothing is kept)."""
        path = self._registry.path
        if self._connection is None:
            if not path.is_file():
                return None
            try:
                # Read-only: this connection never creates, changes or locks the registry.
                self._connection = sqlite3.connect(
                    f"{path.absolute().as_uri()}?mode=ro",
                    uri=True,
                    timeout=5,
                    check_same_thread=False,
                )
            except sqlite3.Error:
                return None
        try:
            row = self._connection.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self.close()
            return None
        return int(row[0])
