"""What changed in the searchable tools' vectors since the generation a process holds
(issue 31).

A registration bumps the registry's search generation, and the process that serves search
used to reread every stored vector and recompute every tool's mean (at 20,000 tools 0.8 s
on a loaded machine, the most of the first search after a registration). A registration
adds one server's tools and drops its older version's; every other tool keeps its row and
its stored blob (a tool's vectors are written once, when its version is registered, and
again only under another model: :func:`metaserver.registry.vectors.searchable_vectors`'
fill). So the held rows and means of the tools that stay are still right, and only the new
tools' rows need reading: this module reads which held tools stay and the added tools' rows,
from one read of the registry. A tool is known by its id and a stamp of its version (the
version id and its registration time): SQLite gives a new row the highest id plus one, so
the ids of the newest tools come back after they are removed (a server re-registered
right after its first registration gets its first tools' ids), and the id alone would
take the new tools for the old. :mod:`metaserver.registry.vectors` then assembles the new
generation's vectors from the held ones and these.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from metaserver.registry.embeddings import DIMENSION, MODEL_ID, Vectors, blob_rows
from metaserver.registry.lexical_delta import stamp

# SQLite's bound parameters per statement stay under its oldest limit (999).
_CHUNK = 900


@dataclass(frozen=True)
class Delta:
    """The searchable tools of a newer generation, as the held ones that stay (``keep``, a
    mask over the held tools, in their order) followed by the added tools (ids above every
    kept one, in id order: where a rebuild, which reads the tools in id order, puts them),
    with the added tools' servers, row counts and rows (tool after tool)."""

    keep: npt.NDArray[np.bool_]
    ids: list[int]
    servers: list[str]
    counts: npt.NDArray[np.int64]
    rows: Vectors
    # Every tool's stamp now (:func:`stamps`), the kept tools' first.
    stamps: npt.NDArray[np.int64]


def _listed(db: sqlite3.Connection, searchable: str) -> list[tuple[int, str, int, int]]:
    """Each searchable tool with vectors of this model: its id, server, row count and stamp,
    in id order (as a rebuild reads them)."""
    listed = db.execute(
        "SELECT t.id, t.server, length(t.embedding), t.version, v.created_at"
        + searchable
        + " JOIN versions AS v ON v.server = t.server AND v.version = t.version"
        " WHERE t.embedding_model = ? AND length(t.embedding) > 0 ORDER BY t.id",
        (MODEL_ID,),
    ).fetchall()
    found = [
        (tool, server, size // (4 * DIMENSION), stamp(version, created_at))
        for tool, server, size, version, created_at in listed
    ]
    return [entry for entry in found if entry[2] > 0]  # as a rebuild skips a blob of no row


def stamps(
    db: sqlite3.Connection, searchable: str, ids: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64] | None:
    """The stamps of the searchable tools ``ids`` (in id order, as read with their rows in
    this transaction of ``db``); None when the tools listed now are others."""
    listed = _listed(db, searchable)
    if [entry[0] for entry in listed] != ids.tolist():
        return None
    return np.array([entry[3] for entry in listed], dtype=np.int64)


def read_delta(
    db: sqlite3.Connection,
    searchable: str,
    held_ids: npt.NDArray[np.int64],
    held_counts: npt.NDArray[np.int64],
    held_stamps: npt.NDArray[np.int64],
) -> Delta | None:
    """The change from the held tools (``held_ids``, in id order, with ``held_counts`` rows
    and ``held_stamps`` each) to the searchable tools of ``db`` now; ``searchable`` is the
    ``FROM ... JOIN`` of the searchable tools (aliases ``t`` and ``s``). None when the tools
    now are not the kept ones followed by new ones, or a kept tool's row count moved: the
    held rows cannot be trusted, and the caller rereads them all.

    ``db`` is read in one transaction of the caller's: the ids and the added rows of one
    snapshot.
    """
    if len(held_ids) > 1 and not bool(np.all(held_ids[1:] > held_ids[:-1])):
        return None  # held in another order than a rebuild reads the tools now
    now = _listed(db, searchable)
    ids = np.array([entry[0] for entry in now], dtype=np.int64)
    now_stamps = np.array([entry[3] for entry in now], dtype=np.int64)
    # A held tool stays when a tool of its id and its version's stamp is listed now.
    position = np.searchsorted(ids, held_ids)
    inside = position < len(ids)
    keep = np.zeros(len(held_ids), dtype=bool)
    keep[inside] = (ids[position[inside]] == held_ids[inside]) & (
        now_stamps[position[inside]] == held_stamps[inside]
    )
    kept = held_ids[keep]
    if not np.array_equal(ids[: len(kept)], kept):
        return None  # a new tool among the kept ones: not where a rebuild puts it
    counts = np.array([entry[2] for entry in now], dtype=np.int64)
    if not np.array_equal(counts[: len(kept)], held_counts[keep]):
        return None
    added = now[len(kept) :]
    blobs: dict[int, bytes] = {}
    for begin in range(0, len(added), _CHUNK):
        chunk = [entry[0] for entry in added[begin : begin + _CHUNK]]
        marks = ",".join("?" * len(chunk))
        blobs.update(
            db.execute(
                f"SELECT id, embedding FROM tools WHERE id IN ({marks})",  # noqa: S608 - marks only
                chunk,
            ).fetchall()
        )
    buffer = bytearray()
    for tool, _, count, _ in added:
        blob = blobs.get(tool)
        if blob is None or blob_rows(blob) != count:
            return None  # changed between the two reads: not of one snapshot
        buffer += memoryview(blob)[: count * 4 * DIMENSION]
    rows = np.frombuffer(buffer, dtype="<f4").reshape(-1, DIMENSION)
    return Delta(
        keep=keep,
        ids=[entry[0] for entry in added],
        servers=[entry[1] for entry in added],
        counts=counts[len(kept) :],
        rows=rows,
        stamps=now_stamps,
    )
