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
from one read of the registry. A tool is known by its id and a stamp of its version (its
registration time) and its server: SQLite gives a new row the highest id plus one, so
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
from metaserver.registry.lexical_delta import indexed

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
    # The stamps of the kept tools, then of the added ones (:func:`stamps`), and the count
    # of tool rows changed in place (:func:`metaserver.registry.lexical_delta.tool_updates`).
    stamps: npt.NDArray[np.int64]
    updates: int


def stamps(
    db: sqlite3.Connection, ids: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], int] | None:
    """The stamps of the searchable tools ``ids`` (in id order, as read with their rows in
    this transaction of ``db``) and the count of rows changed in place; None when one of
    them is not searchable now or the registry keeps no count."""
    now = indexed(db)
    position = np.minimum(np.searchsorted(now.ids, ids), max(len(now.ids) - 1, 0))
    if len(ids) and (not len(now.ids) or not np.array_equal(now.ids[position], ids)):
        return None
    if now.updates is None:
        return None
    return (now.stamps[position] if len(ids) else np.zeros(0, dtype=np.int64)), now.updates


def read_delta(
    db: sqlite3.Connection,
    held_ids: npt.NDArray[np.int64],
    held_servers: npt.NDArray[np.str_],
    held_stamps: npt.NDArray[np.int64],
    held_updates: int,
    most: int,
) -> Delta | None:
    """The change from the held tools (``held_ids``, in id order, of ``held_servers``, with
    ``held_stamps``) to
    the searchable tools of ``db`` now. None when the tools now are not the kept ones
    followed by new ones (in id order, as a rebuild reads them), a tool row was changed in
    place since ``held_updates`` was counted (its vectors may be others), a tool not held
    has no vectors of this model yet, or more than ``most`` tools are not kept ones: the
    caller computes what is missing and rereads them all.

    The searchable tools are listed from the tools' unique index (their ids, servers and
    versions, no row of the table read); only the tools not held are read whole. ``db`` is
    read in one transaction of the caller's: the list and the added rows of one snapshot.
    """
    if len(held_ids) > 1 and not bool(np.all(held_ids[1:] > held_ids[:-1])):
        return None  # held in another order than a rebuild reads the tools
    now = indexed(db)
    if now.updates is None or now.updates != held_updates:
        return None
    keep = now.kept(held_ids, held_servers, held_stamps)
    others = np.ones(len(now.ids), dtype=bool)
    others[np.searchsorted(now.ids, held_ids[keep])] = False
    if int(others.sum()) > most:
        return None
    candidates = now.ids[others].tolist()
    found: dict[int, tuple[str | None, bytes | None]] = {}
    for begin in range(0, len(candidates), _CHUNK):
        chunk = candidates[begin : begin + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            f"SELECT id, embedding_model, embedding FROM tools WHERE id IN ({marks})",  # noqa: S608 - marks only
            chunk,
        )
        found.update((tool, (model, blob)) for tool, model, blob in rows)
    servers = now.servers[others].tolist()
    other_stamps = now.stamps[others]
    ids: list[int] = []
    names: list[str] = []
    counts: list[int] = []
    added: list[int] = []
    buffer = bytearray()
    for index, tool in enumerate(candidates):
        model, blob = found.get(tool, (None, None))
        if model != MODEL_ID or blob is None:
            return None  # vectors to compute first (the caller's fill), then a rebuild
        if not blob_rows(blob):
            continue  # a blob of no row: a rebuild leaves it out too
        count = blob_rows(blob)
        ids.append(tool)
        names.append(servers[index])
        counts.append(count)
        added.append(index)
        buffer += memoryview(blob)[: count * 4 * DIMENSION]  # whole rows (blob_rows)
    kept = held_ids[keep]
    if len(kept) and ids and ids[0] < int(kept[-1]):
        return None  # an added tool among the kept ones: not where a rebuild puts it
    return Delta(
        keep=keep,
        ids=ids,
        servers=names,
        counts=np.array(counts, dtype=np.int64),
        rows=np.frombuffer(buffer, dtype="<f4").reshape(-1, DIMENSION),
        stamps=np.concatenate([held_stamps[keep], other_stamps[added]]).astype(np.int64),
        updates=held_updates,
    )
