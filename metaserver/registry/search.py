"""Ranked search over registered tools (the ``list_tools`` meta-tool and ``metaserver list``).

The index is the ``tools_fts`` FTS5 table that :mod:`metaserver.registry.schema` keeps in step
with the ``tools`` table through triggers, so a search is one read-only query and never sees
a half-registered server. It holds the tools of each server's newest version only: an older
version stays callable as ``name@version`` but is not offered. Ranking is FTS5's bm25 with
per-column weights: a word in the tool's name counts most, then its description, then its
parameters, then where it comes from.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from pydantic import BaseModel, Field

from metaserver.registry.store import Registry

# bm25 weights, one per tools_fts column in order: server and tool are UNINDEXED (their
# weight is unused), then words (the split tool name), description, parameters, origin.
_WEIGHTS = (0.0, 0.0, 8.0, 3.0, 1.5, 1.0)
_MAX_TERMS = 32
_WORD = re.compile(r"[^\W_]+")


class ToolHit(BaseModel):
    """One tool found in the registry."""

    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]
    score: float | None = Field(
        default=None, description="Relevance, higher is better; null when no query was given."
    )


def search_tools(
    registry: Registry, query: str | None, server: str | None = None, limit: int = 20
) -> list[ToolHit]:
    """Registered tools, best match first when a query is given.

    Args:
        registry: the registry to search.
        query: free text; its words are matched (as prefixes, stemmed) against tool names,
            descriptions, parameter names and descriptions, server names and import targets.
            None, or text with no words, lists tools in server/tool order with no score.
        server: only tools of this server.
        limit: at most this many hits (values below 1 give none).

    Returns:
        The hits, ranked by bm25 (``score`` is the negated bm25, so higher is better).
    """
    if limit < 1 or not registry.path.exists():
        return []
    terms = _WORD.findall(query.lower())[:_MAX_TERMS] if query else []
    if not terms:
        return _all_tools(registry, server, limit)
    # Each word becomes a quoted prefix term (quoting neutralises FTS5 syntax in user text);
    # OR lets a tool that matches more words rank higher instead of requiring all of them.
    match = " OR ".join(f'"{term}"*' for term in terms)
    exact = "_".join(terms)
    weights = ", ".join(str(w) for w in _WEIGHTS)
    sql = f"""
        SELECT t.server, t.name, t.description, t.input_schema, bm25(tools_fts, {weights}) AS rank
        FROM tools_fts JOIN tools AS t ON t.id = tools_fts.rowid
        WHERE tools_fts MATCH ? AND (? IS NULL OR t.server = ?)
        ORDER BY (t.name = ? OR t.server || '_' || t.name = ?) DESC, rank, t.server, t.name
        LIMIT ?
    """  # noqa: S608 - only the constant weights are interpolated; user text is bound
    with registry._connect() as db:
        rows = db.execute(sql, (match, server, server, exact, exact, limit)).fetchall()
    return [_hit(row, score=round(-row[4], 6)) for row in rows]


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
