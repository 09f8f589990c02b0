"""Registered versions as ``call_generated`` resolves them, kept while the registry is unchanged.

Resolving a ref read the registry for every call (open SQLite, check the schema, parse the
record with all its tools): more than the hop to the child itself (issue 31). The records are
kept here, and a kept one is used while SQLite's ``PRAGMA data_version`` on one standing
connection stays the same: it changes whenever any other connection (another process's
``metaserver convert``, or this server's own registry writes, which open connections of their
own) commits a change, so a registration or removal is seen by the very next call.
"""

from __future__ import annotations

import contextlib
import sqlite3

from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry

# A bound on the kept records (each holds a server's tools): enough for every server in use.
MAX_KEPT = 4096


class ResolvedRecords:
    """``registry.resolve`` with its answers kept until the registry changes."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._connection: sqlite3.Connection | None = None
        self._version: int | None = None
        self._kept: dict[str, ServerRecord] = {}

    def resolve(self, ref: str) -> ServerRecord:
        """The version ``ref`` names (``name`` or ``name@version``), as the registry says now.

        Raises:
            NotFoundError: no such server or version (never kept).
        """
        version = self._data_version()
        if version is None or version != self._version:
            self._kept.clear()
            self._version = version
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
