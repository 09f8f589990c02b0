"""The stored vectors of the searchable tools, held in memory between searches.

Search compares a request's vector with every searchable tool's (a brute-force dot product:
20,000 tools x 384 dimensions is a few milliseconds, so no vector index is needed; see
bench/registry_scale.py). Reading 20,000 vectors from SQLite takes longer than that, so the
matrix is kept per registry file and read again only when the registry's ``search_state``
generation (bumped by triggers on every change, :mod:`metaserver.registry.schema`) moved,
whichever process made the change.

Tools without a vector (a registry from before embeddings, or registered while no model was
installed) get one here, once, written back in one transaction.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from metaserver.registry.embeddings import MODEL_ID, Vectors, from_blobs, tool_vectors

_SEARCHABLE = " FROM tools AS t JOIN servers AS s ON s.name = t.server AND s.latest = t.version"


@dataclass(frozen=True)
class ToolVectors:
    """The searchable tools' ids, servers and unit vectors, row by row."""

    generation: int
    ids: npt.NDArray[np.int64]
    servers: npt.NDArray[np.str_]
    matrix: Vectors

    def nearest(
        self, query: Vectors, server: str | None, depth: int, floor: float
    ) -> list[tuple[int, float]]:
        """The ``depth`` tools most similar to the unit vector ``query`` (of ``server``'s only,
        when given): (tool id, cosine) pairs, best first, none under ``floor``."""
        similarity = self.matrix @ query
        if server is not None:
            similarity = np.where(self.servers == server, similarity, -1.0)
        depth = min(depth, len(similarity))
        if depth == 0:
            return []
        top = np.argpartition(-similarity, depth - 1)[:depth]
        top = top[np.argsort(-similarity[top], kind="stable")]
        return [(int(self.ids[i]), float(similarity[i])) for i in top if similarity[i] >= floor]


_CACHE: dict[Path, ToolVectors] = {}
_LOCK = threading.Lock()


def searchable_vectors(db: sqlite3.Connection, path: Path) -> ToolVectors:
    """The vectors of the tools search offers, from the cache when the registry is unchanged.

    ``db`` is an open connection to the registry at ``path`` in autocommit mode.
    """
    with _LOCK:
        generation = _generation(db)
        cached = _CACHE.get(path)
        if cached is not None and cached.generation == generation:
            return cached
        if _fill_missing(db):
            generation = _generation(db)
        rows = db.execute(
            "SELECT t.id, t.server, t.embedding" + _SEARCHABLE + " WHERE t.embedding_model = ?",
            (MODEL_ID,),
        ).fetchall()
        vectors = ToolVectors(
            generation=generation,
            ids=np.array([row[0] for row in rows], dtype=np.int64),
            servers=np.array([row[1] for row in rows], dtype=np.str_),
            matrix=from_blobs([row[2] for row in rows]),
        )
        _CACHE[path] = vectors
        return vectors


def _generation(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
    return int(row[0]) if row else 0


def _fill_missing(db: sqlite3.Connection) -> bool:
    """Compute and store the vectors the searchable tools lack; True when any were."""
    missing = db.execute(
        "SELECT t.id, t.name, t.description" + _SEARCHABLE + " WHERE t.embedding IS NULL"
        " OR t.embedding_model IS NOT ?",
        (MODEL_ID,),
    ).fetchall()
    if not missing:
        return False
    vectors = tool_vectors([(name, description) for _, name, description in missing])
    if vectors is None:
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        db.executemany(
            "UPDATE tools SET embedding = ?, embedding_model = ? WHERE id = ?",
            [(blob, MODEL_ID, row[0]) for blob, row in zip(vectors, missing, strict=True)],
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return True
