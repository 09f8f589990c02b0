"""What changed in the BM25 index since the generation a process holds (issue 31).

Reading the whole index into memory (:class:`metaserver.registry.lexical.LexicalIndex`)
takes about a second at 20,000 tools on a loaded machine, and a registration made the
process read it all again. A registration adds one server's tools and drops its older
version's; the other indexed rows keep their text, so their terms and counts are still
right. This module lists the indexed tools now with their server and a stamp of their
version (its registration time: SQLite gives a new row the highest id plus one, so the ids
of the newest tools come back after they are removed, and the id alone would take a
re-registered server's new tools for its old ones), the count of tool rows changed in
place (a changed row is read again with the whole index), and reads the added tools' terms: their
rows of ``tools_fts`` indexed again in an in-memory FTS5 table declared as ``tools_fts`` is
(the same tokenizer, so the same terms), read back through ``fts5vocab`` as the whole index
is. :mod:`metaserver.registry.lexical` merges them into the held index.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

# SQLite's bound parameters per statement stay under its oldest limit (999).
_CHUNK = 900


@dataclass(frozen=True)
class Indexed:
    """The indexed tools (each server's latest version's), in id order, and how many tool
    rows were ever changed in place (None: a registry that does not count them)."""

    ids: npt.NDArray[np.int64]
    servers: npt.NDArray[np.str_]
    # Each tool's version's registration time, in microseconds: a re-registered version
    # (whose tools may take the ids of the ones it replaced) has another.
    stamps: npt.NDArray[np.int64]
    updates: int | None

    def kept(
        self,
        ids: npt.NDArray[np.int64],
        servers: npt.NDArray[np.str_],
        stamps: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Which of the held tools ``ids`` (with their ``servers`` and ``stamps``) are
        listed here as they were: the same id, server and stamp."""
        if not len(self.ids):
            return np.zeros(len(ids), dtype=bool)
        at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return np.asarray(
            (self.ids[at] == ids) & (self.stamps[at] == stamps) & (self.servers[at] == servers),
            dtype=bool,
        )


def tool_updates(db: sqlite3.Connection) -> int | None:
    """How many tool rows were changed in place (the ``tool_updates`` trigger's count);
    None where the registry has no count (held indexes are then read again whole)."""
    try:
        row = db.execute("SELECT count FROM tool_updates WHERE id = 0").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else int(row[0])


def indexed(db: sqlite3.Connection) -> Indexed:
    """The tools ``tools_fts`` indexes now (each server's latest version's, the tools search
    offers), as :meth:`LexicalIndex.read` lists them: read from the tools' unique index
    (server, version, name, and the id), no row of the table (whose vectors make a scan of
    20,000 tools read some 80 MB of pages), then put in id order.

    ``db`` is in a transaction of the caller's. The list is kept for the registry's search
    generation and count of changes in place: the vectors' delta and the index's, after one
    change, read the same list (two reads of 20,000 rows were ~0.1 s of CPU under load)."""
    (file,) = [row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"]
    row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
    key = (str(file), None if row is None else int(row[0]), tool_updates(db))
    with _LISTED_LOCK:
        if key[1] is not None and _LISTED.get(key[0], (None, None))[0] == key:
            return _LISTED[key[0]][1]
    rows = db.execute(
        "SELECT t.id, s.name, CAST(round(v.created_at * 1000000) AS INTEGER) FROM servers AS s"
        " JOIN versions AS v ON v.server = s.name AND v.version = s.latest"
        " CROSS JOIN tools AS t ON t.server = s.name AND t.version = s.latest ORDER BY t.id"
    ).fetchall()
    ids, servers, stamps = zip(*rows, strict=True) if rows else ((), (), ())
    listed = Indexed(
        ids=np.array(ids, dtype=np.int64),
        servers=np.array(servers, dtype=np.str_),
        stamps=np.array(stamps, dtype=np.int64),
        updates=key[2],
    )
    for shared in (listed.ids, listed.servers, listed.stamps):
        shared.flags.writeable = False  # one list, read by both deltas
    with _LISTED_LOCK:
        _LISTED[key[0]] = (key, listed)
    return listed


# Per registry file: the last list read, under its (file, generation, count of changes).
_LISTED: dict[str, tuple[tuple[str, int | None, int | None], Indexed]] = {}
_LISTED_LOCK = threading.Lock()


@dataclass(frozen=True)
class Occurrences:
    """The added rows' terms (sorted) and every occurrence of them, in the index's order
    (term, then row, then column): the term's index, the row's index into the added ids,
    the column's index."""

    terms: list[str]
    term: npt.NDArray[np.int64]
    row: npt.NDArray[np.int64]
    column: npt.NDArray[np.int64]


def added_occurrences(
    db: sqlite3.Connection, ids: list[int], columns: list[str]
) -> Occurrences | None:
    """The terms and occurrences of the ``tools_fts`` rows ``ids`` (in id order) of ``db``,
    whose index has the columns ``columns``; None when a row is missing from the index or
    its declaration cannot be read."""
    declared = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tools_fts'"
    ).fetchone()
    if declared is None or not str(declared[0]).upper().startswith("CREATE VIRTUAL TABLE"):
        return None
    names = ", ".join(columns)
    texts: list[tuple[Any, ...]] = []
    for begin in range(0, len(ids), _CHUNK):
        chunk = ids[begin : begin + _CHUNK]
        marks = ",".join("?" * len(chunk))
        texts += db.execute(
            f"SELECT rowid, {names} FROM tools_fts WHERE rowid IN ({marks})",  # noqa: S608 - the index's own columns
            chunk,
        ).fetchall()
    texts.sort(key=lambda row: int(row[0]))
    if [row[0] for row in texts] != ids:
        return None
    memory = sqlite3.connect(":memory:", isolation_level=None)
    try:
        # The index's own declaration: its columns, which are unindexed, its tokenizer.
        memory.execute(str(declared[0]))
        memory.executemany(
            f"INSERT INTO tools_fts(rowid, {names}) VALUES (?{', ?' * len(columns)})",  # noqa: S608 - the index's own columns
            [(index, *row[1:]) for index, row in enumerate(texts)],
        )
        memory.execute("CREATE VIRTUAL TABLE temp.rows USING fts5vocab(main, tools_fts, row)")
        memory.execute(
            "CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, tools_fts, instance)"
        )
        terms = [row[0] for row in memory.execute("SELECT term FROM temp.rows")]
        position = {term: index for index, term in enumerate(terms)}
        found = memory.execute("SELECT term, doc, col FROM temp.instances").fetchall()
    finally:
        memory.close()
    column = {name: index for index, name in enumerate(columns)}
    return Occurrences(
        terms=terms,
        term=np.array([position[row[0]] for row in found], dtype=np.int64),
        row=np.array([row[1] for row in found], dtype=np.int64),
        column=np.array([column[row[2]] for row in found], dtype=np.int64),
    )
