"""What changed in the BM25 index since the generation a process holds (issue 31).

Reading the whole index into memory (:class:`metaserver.registry.lexical.LexicalIndex`)
takes about a second at 20,000 tools on a loaded machine, and a registration made the
process read it all again. A registration adds one server's tools and drops its older
version's; the other indexed rows keep their text, so their terms and counts are still
right. This module lists the indexed tools now with a stamp of their version (the version
id and its registration time: SQLite gives a new row the highest id plus one, so the ids
of the newest tools come back after they are removed, and the id alone would take a
re-registered server's new tools for its old ones), and reads the added tools' terms: their
rows of ``tools_fts`` indexed again in an in-memory FTS5 table declared as ``tools_fts`` is
(the same tokenizer, so the same terms), read back through ``fts5vocab`` as the whole index
is. :mod:`metaserver.registry.lexical` merges them into the held index.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

# SQLite's bound parameters per statement stay under its oldest limit (999).
_CHUNK = 900


def stamp(version: str, created_at: float) -> int:
    """A version's stamp; hashed within this process only, compared with stamps it read."""
    return hash((version, created_at))


@dataclass(frozen=True)
class Indexed:
    """The indexed tools (each server's latest version's), in id order, and how many tool
    rows were ever changed in place (None: a registry that does not count them)."""

    ids: npt.NDArray[np.int64]
    servers: list[str]
    stamps: npt.NDArray[np.int64]
    updates: int | None


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
    20,000 tools read some 80 MB of pages), then put in id order."""
    rows = db.execute(
        "SELECT t.id, s.name, s.latest, v.created_at FROM servers AS s"
        " JOIN versions AS v ON v.server = s.name AND v.version = s.latest"
        " CROSS JOIN tools AS t ON t.server = s.name AND t.version = s.latest"
    ).fetchall()
    rows.sort(key=lambda row: int(row[0]))
    return Indexed(
        ids=np.array([row[0] for row in rows], dtype=np.int64),
        servers=[row[1] for row in rows],
        stamps=np.array([stamp(row[2], row[3]) for row in rows], dtype=np.int64),
        updates=tool_updates(db),
    )


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
