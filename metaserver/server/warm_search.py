"""Search kept warm in the serving process: the index is reread when the registry changes,
not by the first search after it (issue 31).

A search after a registration (this process's or another's) used to pay for rereading
the searchable tools' vectors and the BM25 index (1.75 s at 20,000 tools). Here a task of
the meta-server's lifespan looks at the search generation (one row, bumped by the
registry's triggers on every change to the searchable tools) a few times a second and, when
it moved, runs one search in a worker thread, which brings what the ranking holds up to
date (:mod:`metaserver.registry.search` keeps it per generation; held vectors and a held
index advance by the tools the change added and dropped, ``registry/vector_delta.py`` and
``lexical_delta.py``, else they are read whole), so the client's next search finds it
current. The watcher starts warming only once this process has searched (or when
asked to at once): a meta-server nobody searches never loads the embedding model and its
vectors, and stays light.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

logger = logging.getLogger(__name__)

# How often the generation is read: one indexed row of SQLite, about 20 us.
INTERVAL = 0.1
# The text of the warming search: its ranking is thrown away, only what it reads is kept.
_QUERY = "warm"
# How long a warm-up waits for the BM25 index's background read.
_INDEX_WAIT = 60.0


class SearchWarmer:
    """Rereads the search index after every change of the registry at ``path``."""

    def __init__(self, path: Path, interval: float = INTERVAL) -> None:
        self._path = path
        self._interval = interval
        self._active = False
        self._warmed: int | None = None
        self._connection: sqlite3.Connection | None = None
        self._changed = asyncio.Event()

    def searched(self) -> None:
        """Called by each search: from now on the index is kept warm."""
        if not self._active:
            self._active = True
            self._changed.set()

    @property
    def warmed(self) -> int | None:
        """The search generation the index was last reread at (None: never)."""
        return self._warmed

    def generation(self) -> int | None:
        """The registry's search generation now; None when it cannot be read (no registry yet,
        or a registry being replaced)."""
        try:
            if self._connection is None:
                if not self._path.exists():
                    return None
                uri = f"{self._path.resolve().as_uri()}?mode=ro"
                self._connection = sqlite3.connect(uri, uri=True, isolation_level=None)
            row = self._connection.execute(
                "SELECT generation FROM search_state WHERE id = 0"
            ).fetchone()
        except sqlite3.Error:
            self.close()
            return None
        return None if row is None else int(row[0])

    async def run(self) -> None:
        """Watch and warm until cancelled (the lifespan's end)."""
        try:
            while True:
                if self._active:
                    generation = self.generation()
                    if generation is not None and generation != self._warmed:
                        await asyncio.to_thread(self._warm)
                        self._warmed = generation
                try:
                    await asyncio.wait_for(self._changed.wait(), self._interval)
                except TimeoutError:
                    pass
                self._changed.clear()
        finally:
            self.close()

    def _warm(self) -> None:
        # Imported here, as the meta-tools import it: the ranking brings numpy and the models.
        from metaserver.registry import lexical
        from metaserver.registry.search import search_tools
        from metaserver.registry.store import Registry

        try:
            registry = Registry(self._path)
            # The first search rereads the vectors; the second starts reading the BM25 index
            # (lexical.current), which is waited for: both current for the client's search.
            search_tools(registry, _QUERY, None, 1)
            search_tools(registry, _QUERY, None, 1)
            lexical.wait(self._path, _INDEX_WAIT)
        except Exception as exc:  # a warm-up never fails the server; the next search says
            logger.info("warming the search index failed: %s", exc)

    def close(self) -> None:
        """Close the standing connection (reopened on the next look)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
