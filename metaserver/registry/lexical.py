"""FTS5's BM25 ranking of the search index, computed in memory from the index's own terms.

``ORDER BY bm25(tools_fts)`` scores every row a query's words match before it sorts them: at
20,000 tools a short request matched about 6,000 rows at 1.5 us each, and that was the largest
part of a search's CPU time (bench/registry_scale.py; ARCHITECTURE.md, decision 17). Here the
same index is read once into arrays (its terms in order, and for each term the rows holding
it with the column-weighted count of its occurrences), and a query costs a few array
operations per word.

The ranking is FTS5's own: the index's terms are read through an ``fts5vocab`` table, so they
are what its ``porter unicode61`` tokenizer made of the text; a query word is tokenized by the
same tokenizer (an in-memory FTS5 table) and matched as a prefix of the index's terms, as
``"word"*`` is; and the score is ``bm25()``'s formula (k1 = 1.2, b = 0.75, an idf of
``log((N - n + 0.5) / (n + 0.5))`` floored at 1e-6, the row's length in tokens over all
columns against the average), ties broken by rowid. Tests compare it with FTS5's.

Reading the index costs about a second at 20,000 tools, so it is read on a background thread
and only once a process searches a second time with the registry unchanged (a one-off
``metaserver list --query`` never pays for it); until then, and for a word the tokenizer
splits in two, search asks SQLite as before. A process that holds the index of an earlier
generation moves it to the new one by what changed (:meth:`LexicalIndex.advance`, issue 31:
the added tools' terms read, the removed tools' rows dropped) on the first search after
the change, the same index a read makes, and reads it all again only when that cannot be.
"""

from __future__ import annotations

import bisect
import math
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from metaserver.registry.lexical_delta import added_occurrences, indexed
from metaserver.registry.release import release_freed_memory

# FTS5's bm25() constants.
_K1 = 1.2
_B = 0.75
# The last code point: a prefix's terms are those from the prefix up to the prefix + this.
_LAST = chr(0x10FFFF)
# Rows a change may add for the held index to be advanced rather than read again (at least
# this many, or a tenth of the index): a server's tools are a few to a few hundred rows.
ADDED_ROWS = 2000


@dataclass(frozen=True)
class LexicalIndex:
    """The index's terms, sorted, and each term's rows: term ``t`` is in rows
    ``rows[starts[t] : starts[t + 1]]`` (indices into ``ids``), with column-weighted
    counts ``counts[...]`` there."""

    generation: int
    ids: npt.NDArray[np.int64]
    servers: npt.NDArray[np.str_]
    lengths: npt.NDArray[np.float64]
    terms: list[str]
    starts: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int64]
    counts: npt.NDArray[np.float64]
    # Each row's stamp of its version (:mod:`metaserver.registry.lexical_delta`), read with
    # the index; None when it could not be: the next change reads the index again.
    stamps: npt.NDArray[np.int64] | None = None
    # How many tool rows had been changed in place when it was read (a change in place
    # since makes the next change read it again); None: not known.
    updates: int | None = None

    @classmethod
    def read(
        cls, db: sqlite3.Connection, weights: Sequence[float], generation: int
    ) -> LexicalIndex:
        """Read the ``tools_fts`` index of ``db``; ``weights`` are bm25()'s column weights."""
        db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_rows USING fts5vocab(main, tools_fts, row)"
        )
        db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_instances"
            " USING fts5vocab(main, tools_fts, instance)"
        )
        columns = [row[1] for row in db.execute("PRAGMA main.table_info(tools_fts)")]
        weight = dict(zip(columns, weights, strict=False))
        # The indexed tools are each server's latest version's (the triggers of
        # :mod:`metaserver.registry.schema`); read from ``tools``, whose rows are cheaper to
        # read than the index's stored copies.
        tools = db.execute(
            "SELECT t.id, t.server FROM tools AS t JOIN servers AS s ON s.name = t.server"
            " AND s.latest = t.version ORDER BY t.id"
        ).fetchall()
        ids = np.array([row[0] for row in tools], dtype=np.int64)
        vocabulary = db.execute("SELECT term, cnt FROM temp.fts_rows").fetchall()
        terms = [row[0] for row in vocabulary]
        total = sum(row[1] for row in vocabulary)
        # Every occurrence of every term, in the index's order (term, then row, then column),
        # as ``row * columns + column``: one string of numbers that numpy parses is about three
        # times faster than the rows crossing into Python one by one (about 0.5 s at 20,000
        # tools, where the index holds 590,000 occurrences).
        case = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(columns))
        (text,) = db.execute(
            f"SELECT group_concat(doc * {len(columns)} + CASE col {case} END)"  # noqa: S608 - the index's own column names
            " FROM temp.fts_instances"
        ).fetchone()
        occurrences = np.fromstring(text or "", dtype=np.int64, sep=",")
        if len(occurrences) != total:
            raise ValueError("the index's occurrences do not add up to its terms' counts")
        flat = np.stack(np.divmod(occurrences, len(columns)), axis=1)
        if terms != sorted(terms):
            raise ValueError("the index's terms are not in code point order")
        rows = np.searchsorted(ids, flat[:, 0])
        known = np.minimum(rows, max(len(ids) - 1, 0))
        if len(flat) and (not len(ids) or not np.array_equal(ids[known], flat[:, 0])):
            raise ValueError("the index has occurrences of rows it does not list")
        column_weight = np.array([weight[name] for name in columns], dtype=np.float64)
        occurrence = column_weight[flat[:, 1]]
        lengths = np.bincount(rows, minlength=len(ids)).astype(np.float64)
        # One entry per (term, row): the weighted count of the term's occurrences in the row.
        term = np.repeat(np.arange(len(terms)), [row[1] for row in vocabulary])
        key = term * (len(ids) + 1) + rows
        # No occurrence at all (no searchable words): no entry, not one at index 0.
        first = np.flatnonzero(np.concatenate(([len(key) > 0], key[1:] != key[:-1])))
        counts = np.add.reduceat(occurrence, first) if len(first) else np.zeros(0)
        per_term = np.bincount(term[first], minlength=len(terms))
        return cls(
            generation=generation,
            ids=ids,
            servers=np.array([row[1] for row in tools], dtype=np.str_),
            lengths=lengths,
            terms=terms,
            starts=np.concatenate(([0], np.cumsum(per_term))).astype(np.int64),
            rows=rows[first].astype(np.int64),
            counts=counts.astype(np.float64),
        )

    def advance(
        self, db: sqlite3.Connection, weights: Sequence[float], generation: int
    ) -> LexicalIndex | None:
        """This index moved to ``generation``, what ``db`` holds now (read in one
        transaction of the caller's): the rows whose tool and version stay keep their terms
        and counts, the others are dropped, the added tools' rows are indexed from their
        text; the same arrays :meth:`read` makes (each count the same sum of the same
        weights). None when the change is not the kept rows followed by added ones (a
        server's older version made latest again), adds more than :data:`ADDED_ROWS`, or
        the index cannot be read."""
        if self.stamps is None or self.updates is None:
            return None
        now = indexed(db)
        if now.updates != self.updates:
            return None  # a row's text may have changed in place
        keep = now.kept(self.ids, self.servers, self.stamps)
        kept = int(keep.sum())
        if not np.array_equal(now.ids[:kept], self.ids[keep]):
            return None  # an added row among the kept ones: not where a read puts it
        added = now.ids[kept:]
        if len(added) > max(ADDED_ROWS, len(self.ids) // 10):
            return None
        columns = [row[1] for row in db.execute("PRAGMA main.table_info(tools_fts)")]
        found = added_occurrences(db, added.tolist(), columns)
        if found is None:
            return None
        weight = dict(zip(columns, weights, strict=False))
        column_weight = np.array([weight[name] for name in columns], dtype=np.float64)
        # The added rows' entries, as read() makes them: one per (term, row), the weighted
        # count of its occurrences summed in the index's order.
        key = found.term * (len(added) + 1) + found.row
        first = np.flatnonzero(np.concatenate(([len(key) > 0], key[1:] != key[:-1])))
        occurrence = column_weight[found.column]
        added_counts = np.add.reduceat(occurrence, first) if len(first) else np.zeros(0)
        # The kept rows' entries, their rows renumbered past the dropped ones.
        held_term = np.repeat(np.arange(len(self.terms)), np.diff(self.starts))
        staying = keep[self.rows]
        renumbered = np.cumsum(keep) - 1
        vocabulary = sorted(set(self.terms).union(found.terms))
        place = {term: index for index, term in enumerate(vocabulary)}
        held_place = np.array([place[term] for term in self.terms], dtype=np.int64)
        added_place = np.array([place[term] for term in found.terms], dtype=np.int64)
        term = np.concatenate(
            [held_place[held_term[staying]], added_place[found.term[first]]]
        ).astype(np.int64)
        row = np.concatenate([renumbered[self.rows[staying]], found.row[first] + kept])
        counts = np.concatenate([self.counts[staying], added_counts]).astype(np.float64)
        order = np.lexsort((row, term))
        per_term = np.bincount(term, minlength=len(vocabulary))
        used = per_term > 0  # a term of dropped rows only is no term of the index now
        return LexicalIndex(
            generation=generation,
            ids=now.ids.copy(),
            servers=np.concatenate([self.servers[keep], now.servers[kept:]]),
            lengths=np.concatenate(
                [self.lengths[keep], np.bincount(found.row, minlength=len(added))]
            ).astype(np.float64),
            terms=[word for word, present in zip(vocabulary, used, strict=True) if present],
            starts=np.concatenate(([0], np.cumsum(per_term[used]))).astype(np.int64),
            rows=row[order].astype(np.int64),
            counts=counts[order],
            stamps=now.stamps,
            updates=now.updates,
        )

    def rank(self, prefixes: Sequence[str], server: str | None, depth: int) -> list[int]:
        """The ids of the ``depth`` best rows for the prefix terms ``prefixes`` (one OR'ed
        phrase each), as ``ORDER BY bm25(...), rowid`` orders them; only ``server``'s rows
        when it is given."""
        total = len(self.ids)
        if not total or not prefixes:
            return []
        average = float(self.lengths.sum()) / total
        norm = _K1 * (1 - _B + _B * self.lengths / average)
        scores = np.zeros(total, dtype=np.float64)
        matched = np.zeros(total, dtype=bool)
        for prefix in prefixes:
            low = bisect.bisect_left(self.terms, prefix)
            high = bisect.bisect_left(self.terms, prefix + _LAST, lo=low)
            if low == high:
                continue
            begin, end = int(self.starts[low]), int(self.starts[high])
            rows, counts = self.rows[begin:end], self.counts[begin:end]
            if high - low > 1:  # several terms: a row's occurrences of any of them
                rows, where = np.unique(rows, return_inverse=True)
                counts = np.bincount(where, weights=counts).astype(np.float64)
            hits = len(rows)
            idf = math.log((total - hits + 0.5) / (hits + 0.5))
            idf = idf if idf > 0 else 1e-6
            scores[rows] += idf * (counts * (_K1 + 1)) / (counts + norm[rows])
            matched[rows] = True
        if server is not None:
            matched &= self.servers == server
        found = np.flatnonzero(matched)
        order = np.lexsort((self.ids[found], -scores[found]))[:depth]
        return [int(tool) for tool in self.ids[found[order]]]


class QueryTerms:
    """What FTS5's ``porter unicode61`` tokenizer makes of query words, remembered."""

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute(
            "CREATE VIRTUAL TABLE words USING fts5(word, tokenize = 'porter unicode61')"
        )
        self._db.execute("CREATE VIRTUAL TABLE tokens USING fts5vocab(words, instance)")
        self._known: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def prefixes(self, words: Sequence[str]) -> list[str] | None:
        """Each word's one token, or None when a word makes none or several (a phrase, which
        only FTS5 matches as it does)."""
        with self._lock:
            new = [word for word in dict.fromkeys(words) if word not in self._known]
            if new:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT INTO words (rowid, word) VALUES (?, ?)", list(enumerate(new))
                )
                tokens: dict[int, list[str]] = {}
                for doc, term in self._db.execute(
                    "SELECT doc, term FROM tokens ORDER BY doc, offset"
                ):
                    tokens.setdefault(doc, []).append(term)
                self._db.execute("ROLLBACK")
                if len(self._known) > 50_000:
                    self._known.clear()
                for index, word in enumerate(new):
                    self._known[word] = tuple(tokens.get(index, ()))
            found = [self._known[word] for word in words]
        if any(len(tokens) != 1 for tokens in found):
            return None
        return [tokens[0] for tokens in found]


_CACHE: dict[Path, LexicalIndex] = {}
_STALE: dict[Path, int] = {}  # the generation a search last found no current index for
_BUILDING: set[Path] = set()
_LOCK = threading.Lock()
_ADVANCING = threading.Lock()


def current(path: Path, generation: int, weights: Sequence[float]) -> LexicalIndex | None:
    """The in-memory index of the registry at ``path`` when it is of ``generation``, else None
    (search asks SQLite); the second search that finds it missing at one generation starts
    reading it on a background thread."""
    with _LOCK:
        cached = _CACHE.get(path)
        if cached is not None and cached.generation == generation:
            return cached
        held = cached if cached is not None and path not in _BUILDING else None
    if held is not None:
        # One advance at a time (the warm-up's and a client's search come together): the
        # second finds the first's index.
        with _ADVANCING:
            with _LOCK:
                held = _CACHE.get(path, held)
            if held.generation == generation:
                return held
            advanced = _advance(path, held, weights)
            if advanced is not None:
                with _LOCK:
                    now = _CACHE.get(path)
                    if now is None or now.generation < advanced.generation:
                        _CACHE[path] = advanced
        if advanced is not None:
            release_freed_memory()  # the held index's arrays, dropped
            if advanced.generation == generation:
                return advanced
    with _LOCK:
        if _STALE.get(path) != generation:
            _STALE[path] = generation
            return None
        if path in _BUILDING:
            return None
        _BUILDING.add(path)
    # A daemon thread: a process that exits meanwhile does not wait for it.
    threading.Thread(
        target=_build, args=(path, weights), name="metaserver-lexical", daemon=True
    ).start()
    return None


def wait(path: Path, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for a read of the index of ``path`` that is under way;
    True when an index is held (current or not) afterwards (a benchmark's warm-up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _LOCK:
            if path not in _BUILDING:
                return path in _CACHE
        time.sleep(0.01)
    return False


def _advance(path: Path, held: LexicalIndex, weights: Sequence[float]) -> LexicalIndex | None:
    """``held`` moved to the generation of the registry at ``path`` now, or None."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
        try:
            db.execute("BEGIN")  # one snapshot: the generation and the rows it counts
            row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
            index = held.advance(db, weights, int(row[0]) if row else 0)
            db.execute("COMMIT")
        finally:
            db.close()
    except (sqlite3.Error, ValueError, OSError):
        return None  # read whole, as before
    return index


def _build(path: Path, weights: Sequence[float]) -> None:
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"  # percent-encodes what a path may hold
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("BEGIN")  # one snapshot: the generation and the index it counts
            row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
            index = LexicalIndex.read(db, weights, int(row[0]) if row else 0)
            listed = indexed(db)
            if np.array_equal(listed.ids, index.ids):
                index = replace(index, stamps=listed.stamps, updates=listed.updates)
            db.execute("COMMIT")
        finally:
            db.close()
        with _LOCK:
            _CACHE[path] = index
        release_freed_memory()  # the text of occurrences and its arrays, read once
    except (sqlite3.Error, ValueError, OSError):
        pass  # search keeps asking SQLite, which ranks the same
    finally:
        with _LOCK:
            _BUILDING.discard(path)
