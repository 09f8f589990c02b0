"""The stored vectors of the searchable tools, held in memory between searches.

Each tool has several vectors (its document and each example request,
:func:`metaserver.registry.embeddings.tool_texts`), stored as one blob and held here as
consecutive rows of one contiguous float32 matrix. A tool's similarity to a request is the mean
of its best row's cosine and its rows' average: the best row finds a tool that one of its
phrasings fits, the average keeps a tool whose texts all fit ahead of one that a single stray
phrase does (measured: ARCHITECTURE.md, decision 17).

The average part is linear, so each tool's mean row is kept too (``centroids``; under
:data:`REDUCE_FROM` tools only, see below), and search
runs in two steps: every need against every tool's mean (one matrix product over one row per
tool: the rows of all of them would triple the memory read per search, which is what a
brute-force search costs on a loaded machine), then the exact score over the rows of the
best :data:`CANDIDATES` times the depth asked for. From :data:`REDUCE_FROM` tools on, the
first step reads the means projected on their first :data:`REDUCED` principal directions
instead (a third of the memory; at 20,000 tools 3.6 -> 1.3 ms of CPU per need, the same
tools found), and the means themselves are not kept: the exact score computes its
candidates' from their rows. No vector index is needed at 20,000 tools
(bench/registry_scale.py). Reading the vectors from SQLite takes longer than that, so they
are kept per registry file and read again only when the registry's ``search_state``
generation (bumped by triggers on every change, :mod:`metaserver.registry.schema`) moved,
whichever process made the change. The rows are not held in the process: they are mapped
from the registry's vector file (:mod:`metaserver.registry.vector_file`), written from SQLite
by the first process to search at a generation and mapped by the others, and each search
drops its mapping of the rows it read, so of 85 MB of rows at 20,000 tools none stay
resident (issue 31). The reduced means are computed a block of rows at a time
(:func:`reduce`, the same floats) so that OpenBLAS keeps no panel of all of them.

After a registration the held vectors move to the new generation by what changed
(:mod:`metaserver.registry.vector_delta`, :func:`advance`): the tools that stay keep their
rows and means, the added tools' rows are read and held in memory after the mapped ones
(``extra``), and their means computed alone; the same ids, rows and floats as a rebuild,
which rereads and averages every row (0.8 s at 20,000 tools on a loaded machine, the most
of the first search after a registration). A change that is not such an append, one that
would move the first pass's basis, or added rows past :data:`EXTRA_ROWS` rebuild as before.

Tools without vectors, or with vectors of another model or recipe (a registry from before,
or registered while no model was installed), get them here, once, written back in one
transaction.
"""

from __future__ import annotations

import json
import logging
import mmap
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from metaserver.registry.embeddings import DIMENSION, MODEL_ID, Vectors, blob_rows, tool_vectors
from metaserver.registry.release import release_freed_memory, steady_mmap_threshold
from metaserver.registry.vector_delta import Delta, read_delta, stamps
from metaserver.registry.vector_file import Stored, load, release_rows, vector_path, write

logger = logging.getLogger(__name__)

# How many tools, per tool asked for, the first step passes to the exact score.
CANDIDATES = 3
# From this many tools on, the first pass ranks by the centroids' first REDUCED principal
# components instead of all their dimensions: a third of the memory read per need.
REDUCE_FROM = 5000
REDUCED = 128
_SAMPLE = 4096
# Rows of means per product with the basis (:func:`reduce`).
_BLOCK = 1024
_SEARCHABLE = " FROM tools AS t JOIN servers AS s ON s.name = t.server AND s.latest = t.version"
# Rows added since the last rebuild that are held in memory (:func:`advance`) before the next
# change rebuilds: at least this many, or a tenth of the mapped rows (a server is a few to a
# few hundred rows; 4,096 rows are 6 MB).
EXTRA_ROWS = 4096


@dataclass(frozen=True)
class ToolVectors:
    """The searchable tools' ids and servers, and their unit vectors: tool ``i``'s rows are
    ``matrix[starts[i] : starts[i] + counts[i]]``."""

    generation: int
    ids: npt.NDArray[np.int64]
    servers: npt.NDArray[np.str_]
    starts: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    matrix: Vectors
    # Each tool's mean row; None for a large registry, whose first pass reads ``reduced``:
    # its candidates' means are computed from their rows, the same floats (sampled_means
    # reduces each tool's rows alone), and 20,000 tools' means are 31 MB (issue 31).
    centroids: Vectors | None
    # The centroids in the span of their first principal directions (``reduced = centroids @
    # basis.T``), for the first pass of a large registry; None for a small one.
    basis: Vectors | None = None
    reduced: Vectors | None = None
    # The vector file ``matrix`` is mapped from, None for rows held in memory: each search
    # drops its mapping of the rows it read (:func:`release_rows`).
    mapping: mmap.mmap | None = None
    # Rows of tools added since ``matrix`` was read (:func:`advance`), held in memory: row
    # ``len(matrix) + i`` is ``extra[i]``. A tool's rows are all in one of the two.
    extra: Vectors | None = None
    # Each tool's stamp of its version (:func:`metaserver.registry.vector_delta.stamps`),
    # read with the rows; None when it could not be: the next change rebuilds.
    stamps: npt.NDArray[np.int64] | None = None
    # The count of tool rows changed in place when they were read (vector_delta).
    updates: int | None = None

    def take(self, rows: npt.NDArray[np.int64]) -> Vectors:
        """Rows ``rows`` (of ``matrix``, then ``extra``), in that order."""
        if self.extra is None or not len(self.extra):
            return np.asarray(self.matrix[rows])
        mapped = rows < len(self.matrix)
        found = np.empty((len(rows), self.matrix.shape[1]), dtype=np.float32)
        found[mapped] = self.matrix[rows[mapped]]
        found[~mapped] = self.extra[rows[~mapped] - len(self.matrix)]
        return found

    def means(self, tools: npt.NDArray[np.int64]) -> Vectors:
        """The mean rows of tools ``tools`` (row indices into ``ids``)."""
        if self.centroids is not None:
            return self.centroids[tools]
        starts, counts = self.starts[tools], self.counts[tools]
        if self.extra is None or not len(self.extra):
            return sampled_means(self.matrix, starts, counts)
        # Each tool's mean from its own rows, wherever they are: the same floats.
        mapped = starts < len(self.matrix)
        means = np.empty((len(tools), self.matrix.shape[1]), dtype=np.float32)
        means[mapped] = sampled_means(self.matrix, starts[mapped], counts[mapped])
        means[~mapped] = sampled_means(
            self.extra, starts[~mapped] - len(self.matrix), counts[~mapped]
        )
        return means

    def similarity(self, tools: npt.NDArray[np.int64], query: Vectors) -> Vectors:
        """The similarity of tools ``tools`` (row indices into ``ids``) to the unit vector
        ``query``: the mean of their best row's cosine and their mean row's."""
        counts = self.counts[tools]
        # The rows of the chosen tools, tool after tool, and where each tool's rows begin.
        begins = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rows = np.repeat(self.starts[tools] - begins, counts) + np.arange(counts.sum())
        best = np.maximum.reduceat(dot_rows(self.take(rows), query), begins)
        return np.asarray(0.5 * (best + dot_rows(self.means(tools), query)), dtype=np.float32)

    def nearest(
        self, queries: Vectors, server: str | None, depth: int, floor: float
    ) -> list[list[int]]:
        """For each unit vector of ``queries``, the ids of the ``depth`` tools most similar to
        it (of ``server``'s only, when given), best first, none under ``floor``."""
        if not len(self.ids) or not len(queries):
            return [[] for _ in queries]
        if self.basis is not None and self.reduced is not None:
            coarse = np.stack(
                [dot_rows(self.reduced, dot_rows(self.basis, query)) for query in queries], axis=1
            )
        else:
            assert self.centroids is not None  # kept whenever there is no reduced pass
            coarse = np.stack([dot_rows(self.centroids, query) for query in queries], axis=1)
        if server is not None:
            coarse[self.servers != server] = -2.0
        wide = min(depth * CANDIDATES, len(self.ids))
        found: list[list[int]] = []
        for query, column in zip(queries, coarse.T, strict=True):
            tools = np.argpartition(-column, wide - 1)[:wide]
            tools = tools[column[tools] > -2.0]
            if not len(tools):  # no tool of that server has vectors
                found.append([])
                continue
            scores = self.similarity(tools, query)
            order = np.argsort(-scores, kind="stable")[:depth]
            found.append([int(self.ids[tools[i]]) for i in order if scores[i] >= floor])
        release_rows(self.mapping)
        return found


def dot_rows(rows: Vectors, query: Vectors) -> Vectors:
    """``rows @ query``, on this thread alone.

    ``@`` of a matrix and a vector goes to the BLAS library numpy ships (OpenBLAS), which
    splits it over every core, and its threads spin while they wait: at 20,000 tools that was
    7 ms of CPU per need instead of 1.3 ms on one thread, and on a loaded 2-core machine the
    spinning slowed the BM25 query and the embedding running beside it
    (bench/registry_scale.py). ``vecdot`` runs one dot product per row on the calling thread
    (1.4 ms), and touches no global setting of the process: the library's thread count is
    shared with whatever else the process runs. numpy before 2.0 has no ``vecdot``;
    ``einsum``, its own single-threaded loop, costs 3.5 ms there.
    """
    if _VECDOT is not None:
        return np.asarray(_VECDOT(rows, query), dtype=np.float32)
    return np.asarray(np.einsum("ij,j->i", rows, query), dtype=np.float32)


_VECDOT = getattr(np, "vecdot", None)


_CACHE: dict[Path, ToolVectors] = {}
_BASES: dict[Path, tuple[int, Vectors]] = {}  # per registry: the tool count, the basis
_LOCK = threading.Lock()


def searchable_vectors(db: sqlite3.Connection, path: Path) -> ToolVectors:
    """The vectors of the tools search offers, from the cache when the registry is unchanged.

    ``db`` is an open connection to the registry at ``path`` in autocommit mode. The rows are
    mapped from the registry's vector file (:mod:`metaserver.registry.vector_file`), which is
    written anew from SQLite when it is missing, stale or corrupt.
    """
    steady_mmap_threshold()
    with _LOCK:
        generation = _generation(db)
        cached = _CACHE.get(path)
        if cached is not None and cached.generation == generation:
            return cached
        # Held vectors advance by the tools a change added, each with its vectors (a tool
        # without is refused, and filled below): no scan of every tool for missing ones.
        advanced = None if cached is None else _advanced(db, path, cached)
        if advanced is not None:
            _CACHE[path] = advanced
            return advanced
        if _fill_missing(db):
            generation = _generation(db)
        file = vector_path(path)
        stored = load(file, generation) or _stored(db, file)
        vectors = replace(
            assemble(
                path, stored.generation, stored.ids, stored.servers, stored.counts, stored.matrix
            ),
            mapping=stored.mapping,
        )
        stamped = _stamps(db, vectors)
        if stamped is not None:
            vectors = replace(vectors, stamps=stamped[0], updates=stamped[1])
        release_rows(stored.mapping)  # computing the means read every row
        _CACHE[path] = vectors
    release_freed_memory()  # the blobs read, the means' copies
    return vectors


def assemble(
    path: Path,
    generation: int,
    ids: list[int],
    servers: list[str],
    counts: npt.NDArray[np.int64],
    matrix: Vectors,
) -> ToolVectors:
    """The searchable vectors of the registry at ``path`` from its tools' ids, servers, row
    counts and rows: the means, and for a large registry the reduced means in their place."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    centroids = np.ascontiguousarray(sampled_means(matrix, starts, counts), dtype=np.float32)
    basis = principal_basis(path, centroids)
    return ToolVectors(
        generation=generation,
        ids=np.array(ids, dtype=np.int64),
        servers=np.array(servers, dtype=np.str_),
        starts=starts,
        counts=counts,
        matrix=matrix,
        centroids=centroids if basis is None else None,
        basis=basis,
        reduced=None if basis is None else reduce(centroids, basis),
    )


def _stamps(
    db: sqlite3.Connection, vectors: ToolVectors
) -> tuple[npt.NDArray[np.int64], int] | None:
    """The stamps of ``vectors``' tools and the count of rows changed in place, read where
    the registry is still at their generation (else None: the next change rebuilds)."""
    db.execute("BEGIN")
    try:
        if _generation(db) != vectors.generation:
            return None
        return stamps(db, vectors.ids)
    finally:
        db.execute("COMMIT")


def _advanced(db: sqlite3.Connection, path: Path, held: ToolVectors) -> ToolVectors | None:
    """``held`` moved to the registry's generation now by the tools that changed, read in
    one snapshot; None when it cannot be (:func:`advance`, :func:`read_delta`)."""
    if held.stamps is None or held.updates is None:
        return None
    db.execute("BEGIN")
    try:
        generation = _generation(db)
        delta = read_delta(
            db, held.ids, held.servers, held.stamps, held.updates, _extra_bound(held)
        )
    finally:
        db.execute("COMMIT")
    return None if delta is None else advance(held, delta, generation, path)


def _extra_bound(held: ToolVectors) -> int:
    """How many more rows ``held`` may take in memory before a rebuild (:data:`EXTRA_ROWS`)."""
    extra = 0 if held.extra is None else len(held.extra)
    return max(EXTRA_ROWS, len(held.matrix) // 10) - extra


def advance(held: ToolVectors, delta: Delta, generation: int, path: Path) -> ToolVectors | None:
    """The vectors of ``generation``: ``held``'s tools that ``delta`` keeps, their rows and
    means as held, then ``delta``'s added tools, their rows held in ``extra`` and their means
    computed alone (:func:`sampled_means` reduces each tool alone, :func:`reduce` each row
    alone: the floats of a rebuild). None when a rebuild is due: the added rows would pass
    :data:`EXTRA_ROWS`, or the first pass would change (crossing :data:`REDUCE_FROM`, or a
    size the held basis is not kept for, :func:`principal_basis`)."""
    extra = held.extra if held.extra is not None else np.zeros((0, DIMENSION), np.float32)
    if len(delta.rows) > _extra_bound(held):
        return None
    total = int(delta.keep.sum()) + len(delta.ids)
    local = (np.cumsum(delta.counts) - delta.counts).astype(np.int64)  # where each begins
    means = np.ascontiguousarray(sampled_means(delta.rows, local, delta.counts))
    centroids = reduced = None
    if held.basis is None:
        if total >= REDUCE_FROM or held.centroids is None:
            return None
        centroids = np.concatenate([held.centroids[delta.keep], means])
    else:
        known = _BASES.get(path)
        if held.reduced is None or known is None or known[1] is not held.basis:
            return None
        if total < REDUCE_FROM or not known[0] / 2 <= total <= known[0] * 2:
            return None
        reduced = np.concatenate([held.reduced[delta.keep], reduce(means, held.basis)])
    return ToolVectors(
        generation=generation,
        ids=np.concatenate([held.ids[delta.keep], np.array(delta.ids, dtype=np.int64)]),
        servers=np.concatenate([held.servers[delta.keep], np.array(delta.servers, dtype=np.str_)]),
        starts=np.concatenate(
            [held.starts[delta.keep], local + len(held.matrix) + len(extra)]
        ).astype(np.int64),
        counts=np.concatenate([held.counts[delta.keep], delta.counts]).astype(np.int64),
        matrix=held.matrix,
        centroids=centroids,
        basis=held.basis,
        reduced=reduced,
        mapping=held.mapping,
        extra=np.concatenate([extra, delta.rows]),
        stamps=delta.stamps,
        updates=delta.updates,
    )


def reduce(centroids: Vectors, basis: Vectors) -> Vectors:
    """``centroids @ basis.T``, a block of rows at a time.

    The whole product in one call kept ~28 MB of OpenBLAS's packing buffers in the process
    (its panel of the 20,000 means, held for reuse); blocks of about :data:`_BLOCK` rows
    keep ~1 MB. Each element is the same dot product over the same dimensions whatever the
    rows beside it (the library blocks the rows, never the sum), so the floats are the whole
    product's (tests/registry/test_vector_file.py). No block is small: a product under the
    library's small-matrix size may take another kernel: fewer rows (the tools a
    registration adds, :func:`advance`) are padded with zero rows to a block.
    """
    if len(centroids) < _BLOCK:
        padded = np.zeros((_BLOCK, centroids.shape[1]), dtype=np.float32)
        padded[: len(centroids)] = centroids
        return np.ascontiguousarray((padded @ basis.T)[: len(centroids)])
    blocks = np.array_split(centroids, max(1, len(centroids) // _BLOCK))
    return np.ascontiguousarray(np.concatenate([block @ basis.T for block in blocks]))


def _stored(db: sqlite3.Connection, file: Path) -> Stored:
    """The searchable tools' ids, servers, row counts and stored vectors, of one snapshot of
    the registry: written to the vector ``file`` and mapped from it, or held in memory where
    the file cannot be written."""
    db.execute("BEGIN")  # one snapshot: the generation and the rows it counts
    try:
        generation = _generation(db)
        query = (
            "SELECT t.id, t.server, t.embedding" + _SEARCHABLE + " WHERE t.embedding_model = ?"
            " AND length(t.embedding) > 0"
        )
        try:
            return write(file, generation, db.execute(query, (MODEL_ID,)))
        except OSError as exc:
            logger.warning("vectors held in memory: cannot write %s: %s", file, exc)
            return _in_memory(generation, db.execute(query, (MODEL_ID,)))
    finally:
        db.execute("COMMIT")


def _in_memory(generation: int, rows: Iterable[tuple[int, str, bytes]]) -> Stored:
    """The rows in one buffer, each blob copied in as it is read and freed in turn: holding
    them all (``fetchall``) and then joining them held the matrix three times over, and the
    allocator kept the freed copies (issue 31)."""
    ids: list[int] = []
    servers: list[str] = []
    counts: list[int] = []
    buffer = bytearray()
    for tool_id, server, blob in rows:
        count = blob_rows(blob)
        if not count:
            continue
        ids.append(tool_id)
        servers.append(server)
        counts.append(count)
        buffer += memoryview(blob)[: count * 4 * DIMENSION]  # whole rows (blob_rows)
    matrix = np.frombuffer(buffer, dtype="<f4").reshape(-1, DIMENSION)
    return Stored(generation, ids, servers, np.array(counts, dtype=np.int64), matrix)


def principal_basis(path: Path, centroids: Vectors) -> Vectors | None:
    """The first pass's basis for the registry at ``path``: None under :data:`REDUCE_FROM`
    tools; else the one computed before, while the registry stays within a factor of 2 of
    the size it was computed at (the directions of 20,000 tools barely move when a server
    is added, and on a loaded machine the computation took 0.4 to 4 s)."""
    if len(centroids) < REDUCE_FROM:
        return None
    known = _BASES.get(path)
    if known is not None and known[0] / 2 <= len(centroids) <= known[0] * 2:
        return known[1]
    basis = principal_directions(centroids)
    _BASES[path] = (len(centroids), basis)
    return basis


def principal_directions(centroids: Vectors) -> Vectors:
    """The first :data:`REDUCED` principal directions of the centroids (uncentred: those
    that keep their dot products with any vector best), one unit row each, estimated from
    at most :data:`_SAMPLE` of them spread over the registry."""
    sample = centroids[:: max(1, len(centroids) // _SAMPLE)]
    _, directions = np.linalg.eigh(sample.T @ sample)  # ascending eigenvalues
    return np.ascontiguousarray(directions[:, ::-1][:, :REDUCED].T, dtype=np.float32)


def sampled_means(
    matrix: Vectors, starts: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> Vectors:
    """Each tool's mean row, computed for the tools of each row count at once (a tool has a
    few rows; np.add.reduceat along rows took 2.6 s at 20,000 tools)."""
    means = np.zeros((len(starts), matrix.shape[1]), dtype=np.float32)
    for count in np.unique(counts):
        tools = np.flatnonzero(counts == count)
        rows = starts[tools][:, None] + np.arange(count)
        means[tools] = matrix[rows].mean(axis=1)
    return means


def _generation(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
    return int(row[0]) if row else 0


def _fill_missing(db: sqlite3.Connection) -> bool:
    """Compute and store the vectors the searchable tools lack; True when any were."""
    missing = db.execute(
        "SELECT t.id, t.name, t.description, t.requests" + _SEARCHABLE + " WHERE t.embedding"
        " IS NULL OR t.embedding_model IS NOT ?",
        (MODEL_ID,),
    ).fetchall()
    if not missing:
        return False
    vectors = tool_vectors(
        [(name, text, json.loads(requests)) for _, name, text, requests in missing]
    )
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
