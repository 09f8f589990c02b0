"""Ranked search over registered tools (the ``list_tools`` and ``find_tools`` meta-tools and
``metaserver list --query``): BM25 and sentence embeddings, fused.

A request is split into the needs it is made of (:mod:`metaserver.registry.needs`: the whole
text and its clauses less their paths, the file operations the paths imply, the means the
request implies). For each need two rankings of the
searchable tools are made and fused by weighted reciprocal rank (each tool scores
``sum(weight / (60 + rank))``):

- BM25 over the ``tools_fts`` FTS5 index, which :mod:`metaserver.registry.schema` keeps in step
  with the ``tools`` table through triggers (a word in the tool's name counts most, then its
  description, then its parameters, then where it comes from and its example requests),
  common English words left out; FTS5's ranking, computed in memory from the index's own
  terms once they are read (:mod:`metaserver.registry.lexical`), by SQLite until then;
- the similarity of the need's embedding with each tool's vectors (its description and each
  of its example requests, :mod:`metaserver.registry.requests`), stored at registration
  (:mod:`metaserver.registry.embeddings`, :mod:`metaserver.registry.vectors`).

The needs' fused scores, each divided by its need's best, merge by maximum, less a cost per
place below the top of the tool's best need (less in the whole request's ranking): the needs
take turns at the top instead of the longest need taking every place. Ties go to the tool the
whole request ranks higher. A tool named like one ranked above it (another server's
``write_file``) comes after the tools of names not yet listed. Without
an embedding model the same runs on BM25 alone. Only each server's newest version is
searched: an older version stays callable as ``name@version`` but is not offered. Weights and
depths were measured with bench/retrieval.py (ARCHITECTURE.md, decision 17).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, Field

from metaserver.registry.lexical import LexicalIndex, QueryTerms, current
from metaserver.registry.needs import sub_needs
from metaserver.registry.store import Registry

# bm25 weights, one per tools_fts column in order: server and tool are UNINDEXED (their
# weight is unused), then words (the split tool name), description, parameters, origin,
# example requests.
BM25_WEIGHTS = (0.0, 0.0, 8.0, 3.0, 1.5, 1.0, 1.0)
_MAX_TERMS = 32
_WORD = re.compile(r"[^\W_]+")
# Words that say nothing about a tool. Left in, each matched (as a prefix) most descriptions,
# and long requests ranked tools by how many of them they held: recall@10 of BM25 alone went
# from 0.348 to 0.429 without them (bench/retrieval.py).
_STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not now of off on once only or other our out over own please same she should
    so some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your
    yours help want need like let s t""".split()
)
# Reciprocal-rank fusion: the usual constant, and the weight of the embedding's ranking against
# BM25's (measured: 1 -> R@10 0.578, 1.5 -> 0.588, 2 -> 0.599, 3 -> 0.556).
_RRF_K = 60
_BM25_WEIGHT = 1.0
_DENSE_WEIGHT = 2.0
# Each ranking's depth; deeper only adds tools that no merge would keep.
_DEPTH = 100
# A tool less similar than this to a need is no dense match for it (unrelated text scores about
# 0 to 0.15 with this model): a query for "slug" must not list every tool.
_DENSE_FLOOR = 0.2
# What a place lower in a need's ranking costs (a need's best tool scores 1): 0.25 let each
# need's top tools in ahead of another need's tail (recall@10 0.593 -> 0.614).
TURN = 0.25
# The whole request's places cost less: it is the one need that speaks for all of the request,
# and its second and third tools are more often wanted than a clause's (0.1 to 0.2 measured
# alike; 0.15: recall@5 0.557 -> 0.562, recall@10 0.665 -> 0.690).
WHOLE_TURN = 0.15
# How many tools, per tool asked for, are read to move repeated names down the answer.
_REPEATS = 2
# What query words are as the index's terms (the tokenizer's output, remembered).
_QUERY_TERMS = QueryTerms()
# Where requests are embedded: concurrent searches share the one model session.
_EMBEDDING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="metaserver-embed")


class ToolHit(BaseModel):
    """One tool found in the registry."""

    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]
    score: float | None = Field(
        default=None,
        description="Relevance, higher is better (the best hit of an answer scores 1); null when "
        "no query was given.",
    )


def search_tools(
    registry: Registry, query: str | None, server: str | None = None, limit: int = 20
) -> list[ToolHit]:
    """Registered tools, best match first when a query is given.

    Args:
        registry: the registry to search.
        query: a plain-language need, or words; matched by meaning (embeddings) and by words
            (as prefixes, stemmed) against tool names, descriptions, parameter names and
            descriptions, server names, import targets and example requests. An exact tool
            name (``tool`` or ``server_tool``) ranks that tool first. None, or text with no
            words, lists tools in server/tool order with no score.
        server: only tools of this server.
        limit: at most this many hits (values below 1 give none).

    Returns:
        The hits, best first; scores are comparable within one answer.
    """
    if limit < 1 or not registry.path.exists():
        return []
    terms = _WORD.findall(query.lower())[:_MAX_TERMS] if query else []
    if not query or not terms:
        return _all_tools(registry, server, limit)
    from metaserver.registry.embeddings import embedder  # lazily: numpy, onnxruntime
    from metaserver.registry.vectors import searchable_vectors

    needs = sub_needs(query)
    depth = max(_DEPTH, limit)
    model = embedder()
    with registry._connect() as db:
        dense: list[list[int]] = [[] for _ in needs]
        vectors = searchable_vectors(db, registry.path) if model is not None else None
        # The needs' embedding (onnxruntime, all needs in one call) and their nearest tools
        # (numpy) run on another thread while SQLite ranks them by BM25 on this one: all three
        # release the GIL, so a search costs the longer of the two.
        embedding = (
            _EMBEDDING.submit(
                lambda: vectors.nearest(model.embed_queries(needs), server, depth, _DENSE_FLOOR)
            )
            if model is not None and vectors is not None and len(vectors.ids)
            else None
        )
        index = current(registry.path, _generation(db), BM25_WEIGHTS)
        lexical = [bm25_ranked(db, need, server, depth, index) for need in needs]
        if embedding is not None:
            dense = embedding.result()
        merged, whole = interleave(
            [
                _fuse(((_BM25_WEIGHT, words), (_DENSE_WEIGHT, nearest)))
                for words, nearest in zip(lexical, dense, strict=True)
            ]
        )
        exact = _exact_matches(db, "_".join(terms), server)
        for tool in exact:
            merged[tool] = 1.0
        ranked = sorted(
            merged,
            key=lambda tool: (tool not in exact, -merged[tool], -whole.get(tool, 0.0), tool),
        )[: _REPEATS * limit]
        rows = _rows(db, ranked)
        ranked = _distinct_first(ranked, rows, exact)[:limit]
    return [_hit(rows[tool], score=round(max(merged[tool], 0.0), 6)) for tool in ranked]


def interleave(needs: list[dict[int, float]]) -> tuple[dict[int, float], dict[int, float]]:
    """The needs' fused scores (the whole request's first) merged into one score per tool, and
    the whole request's own scores (ties go to the tool it ranks higher).

    Each need's scores are divided by its best, and a tool keeps its best over the needs less
    what its best place costs: TURN per place below the top of a need's ranking, WHOLE_TURN
    in the whole request's. So each need's first tools come before any need's later ones.
    """
    merged: dict[int, float] = {}
    whole: dict[int, float] = {}
    turn: dict[int, float] = {}  # what a tool's best place in any need's ranking costs
    for need, fused in enumerate(needs):
        if not fused:
            continue
        best = max(fused.values())
        cost = WHOLE_TURN if need == 0 else TURN
        for rank, tool in enumerate(sorted(fused, key=lambda t: -fused[t])):
            turn[tool] = min(turn.get(tool, rank * cost), rank * cost)
        for tool, score in fused.items():
            merged[tool] = max(merged.get(tool, 0.0), score / best)
        if not whole:
            whole = {tool: score / best for tool, score in fused.items()}
    return {tool: score - turn[tool] for tool, score in merged.items()}, whole


def _distinct_first(
    ranked: list[int], rows: dict[int, tuple[Any, ...]], exact: set[int]
) -> list[int]:
    """``ranked`` with each tool named like a tool above it (another server's ``write_file``)
    moved after the tools of names not listed yet, in order: a second tool of the same name
    is rarely a second means to the request, and its place lets another kind of tool in.
    Exact name matches stay where they are (the name was asked for)."""
    seen: set[str] = set()
    first: list[int] = []
    repeats: list[int] = []
    for tool in ranked:
        name = str(rows[tool][1]).lower()
        (repeats if name in seen and tool not in exact else first).append(tool)
        seen.add(name)
    return first + repeats


def _fuse(rankings: Iterable[tuple[float, list[int]]]) -> dict[int, float]:
    """Weighted reciprocal-rank fusion of rankings of tool ids."""
    scores: dict[int, float] = {}
    for weight, ranking in rankings:
        for rank, tool in enumerate(ranking, start=1):
            scores[tool] = scores.get(tool, 0.0) + weight / (_RRF_K + rank)
    return scores


def bm25_ranked(
    db: sqlite3.Connection,
    text: str,
    server: str | None,
    depth: int,
    index: LexicalIndex | None = None,
) -> list[int]:
    """Tool ids ranked by bm25 for the words of ``text`` (common words left out): by the
    in-memory ``index`` when there is one (the same ranking, :mod:`.lexical`), else by
    SQLite."""
    words = _WORD.findall(text.lower())
    terms = list(dict.fromkeys(w for w in words if w not in _STOPWORDS))[:_MAX_TERMS]
    if not terms:
        return []
    prefixes = _QUERY_TERMS.prefixes(terms) if index is not None else None
    if index is not None and prefixes is not None:
        return index.rank(prefixes, server, depth)
    # Each word becomes a quoted prefix term (quoting neutralises FTS5 syntax in user text);
    # OR lets a tool that matches more words rank higher instead of requiring all of them.
    match = " OR ".join(f'"{term}"*' for term in terms)
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    # The index alone (its rowid is the tool's id): a join with ``tools`` before the sort
    # tripled the time at 20,000 tools (bench/registry_scale.py). A server's tools are picked
    # by their ids from the ``tools`` index, not by the index's UNINDEXED server column, which
    # reads each matching row's stored text (11.8 -> 6.4 ms of CPU at 20,000 tools).
    only = " AND rowid IN (SELECT id FROM tools WHERE server = ?)" if server is not None else ""
    sql = f"""
        SELECT rowid FROM tools_fts WHERE tools_fts MATCH ?{only}
        ORDER BY bm25(tools_fts, {weights}), rowid LIMIT ?
    """  # noqa: S608 - only constants are interpolated; user text is bound
    args = (match, server, depth) if server is not None else (match, depth)
    return [row[0] for row in db.execute(sql, args).fetchall()]


def _generation(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT generation FROM search_state WHERE id = 0").fetchone()
    return int(row[0]) if row else 0


def _exact_matches(db: sqlite3.Connection, name: str, server: str | None) -> set[int]:
    """Searchable tools named ``name``, or ``<server>_<tool>`` spelling ``name``.

    One indexed lookup per reading of the name (a concatenation in SQL would scan every tool).
    """
    readings = [(None, name)] + [
        (name[:i], name[i + 1 :]) for i, char in enumerate(name) if char == "_"
    ]
    found: set[int] = set()
    for owner, tool in readings:
        if owner is not None and server is not None and owner != server:
            continue
        rows = db.execute(
            "SELECT t.id FROM tools AS t JOIN servers AS s ON s.name = t.server"
            " AND s.latest = t.version WHERE t.name = ? AND t.server = coalesce(?, ?, t.server)",
            (tool, owner, server),
        ).fetchall()
        found.update(row[0] for row in rows)
    return found


def _rows(db: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[Any, ...]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT id, server, name, description, input_schema FROM tools WHERE id IN ({marks})",  # noqa: S608
        ids,
    ).fetchall()
    return {row[0]: row[1:] for row in rows}


def _all_tools(registry: Registry, server: str | None, limit: int) -> list[ToolHit]:
    with registry._connect() as db:
        rows = db.execute(
            "SELECT t.server, t.name, t.description, t.input_schema FROM tools AS t"
            " JOIN servers AS s ON s.name = t.server AND s.latest = t.version"
            " WHERE (? IS NULL OR t.server = ?) ORDER BY t.server, t.name LIMIT ?",
            (server, server, limit),
        ).fetchall()
    return [_hit(row, score=None) for row in rows]


def _hit(row: sqlite3.Row | tuple[Any, ...], score: float | None) -> ToolHit:
    return ToolHit(
        server=row[0],
        tool=row[1],
        description=row[2],
        input_schema=json.loads(row[3]),
        score=score,
    )
