"""The in-memory BM25 ranks exactly as FTS5's bm25() over the same index (no processes)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from metaserver.registry import lexical
from metaserver.registry.lexical import LexicalIndex, QueryTerms, current
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.search import BM25_WEIGHTS, bm25_ranked, search_tools
from metaserver.registry.store import Registry
from metaserver.settings import Settings

# Words that share prefixes and stems (convert, conversion, converter; run, running, runs),
# that repeat within a text, and that sit in different columns (name, description, parameter).
_TOOLS = {
    "units": [
        ("convert_units", "Convert a quantity between units; conversion of units.", ["value"]),
        ("unit_converter", "A converter object for units.", ["source", "target"]),
        ("run_model", "Run a model; running again reruns it.", ["runs"]),
    ],
    "text": [
        ("count_words", "Count words in text, word by word.", ["text"]),
        ("convert_case", "Change the case of text.", ["text", "case"]),
        ("split_text", "Split the text into runs of letters.", ["text", "separator"]),
    ],
    "geo": [
        ("distance", "Great-circle distance between two points on a sphere.", ["a", "b"]),
        ("convert_coordinates", "Convert coordinates between datums.", ["lat", "lon"]),
    ],
}
_QUERIES = [
    "convert",
    "conv units",
    "running a model",
    "words text count",
    "text",
    "distance between coordinates",
    "nothing matches this",
    "run convert text units words",
]


def _registry(settings: Settings) -> Registry:
    registry = Registry(settings.registry_path)
    for server, tools in _TOOLS.items():
        where = settings.servers_dir / server
        registry.register(
            ServerRecord(
                name=server,
                source=f"test:{server}",
                output_dir=where,
                python_path=where / "python",
                venv=where,
                generator_version="test",
                tools=[
                    ToolRecord(
                        name=name,
                        description=description,
                        target=f"pkg:{name}",
                        input_schema={
                            "type": "object",
                            "properties": {p: {"type": "string"} for p in params},
                        },
                        definition_hash=name,
                    )
                    for name, description, params in tools
                ],
            )
        )
    return registry


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def test_ranks_as_fts5_bm25(settings: Settings) -> None:
    registry = _registry(settings)
    db = _connect(registry.path)
    index = LexicalIndex.read(db, BM25_WEIGHTS, 0)
    assert len(index.ids) == 8 and index.terms == sorted(index.terms)
    for query in _QUERIES:
        for server in (None, "units", "text", "absent"):
            for depth in (2, 100):
                expected = bm25_ranked(db, query, server, depth)
                assert bm25_ranked(db, query, server, depth, index) == expected, (query, server)
    # Not vacuous: a prefix found the four tools with "conv..." words, ranked by score, not
    # by id; a stem found the tool with "runs" only through "running" -> "run".
    ranked = bm25_ranked(db, "conv", None, 100, index)
    assert len(ranked) == 4 and ranked != sorted(ranked)
    assert len(bm25_ranked(db, "running", "text", 100, index)) == 1
    db.close()


def test_an_index_of_no_tools_is_read_empty(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    registry.register(
        ServerRecord(
            name="bare",
            source="test:bare",
            output_dir=settings.servers_dir / "bare",
            python_path=Path("/usr/bin/python3"),
            venv=Path("/usr"),
            generator_version="test",
            tools=[],
        )
    )
    db = _connect(registry.path)
    index = LexicalIndex.read(db, BM25_WEIGHTS, 0)  # raised IndexError (no occurrence)
    assert len(index.ids) == 0 and index.terms == []
    assert bm25_ranked(db, "anything", None, 10, index) == []
    db.close()


def test_query_words_are_the_tokenizers_terms() -> None:
    terms = QueryTerms()
    assert terms.prefixes(["running", "conversions", "Café"]) == ["run", "convers", "cafe"]
    assert terms.prefixes(["running"]) == ["run"]  # remembered, the same
    # Text the tokenizer makes several tokens of is a phrase: only FTS5 matches it so.
    assert terms.prefixes(["two words"]) is None
    assert terms.prefixes(["..."]) is None


def test_the_index_is_read_on_the_second_search_and_follows_changes(settings: Settings) -> None:
    registry = _registry(settings)
    path = registry.path
    assert current(path, 1, BM25_WEIGHTS) is None  # a first search: SQLite, nothing started
    assert path not in lexical._BUILDING and path not in lexical._CACHE
    assert current(path, 1, BM25_WEIGHTS) is None  # the second starts the read
    deadline = time.monotonic() + 30
    while path not in lexical._CACHE and time.monotonic() < deadline:
        time.sleep(0.02)
    db = _connect(path)
    generation = db.execute("SELECT generation FROM search_state").fetchone()[0]
    index = current(path, generation, BM25_WEIGHTS)
    assert index is not None and len(index.ids) == 8
    # Another generation (a registration anywhere) makes it stale: SQLite again.
    assert current(path, generation + 1, BM25_WEIGHTS) is None
    db.close()


def test_search_ranks_the_same_with_the_index(settings: Settings) -> None:
    registry = _registry(settings)
    before = {query: search_tools(registry, query) for query in _QUERIES}
    deadline = time.monotonic() + 30
    while registry.path not in lexical._CACHE and time.monotonic() < deadline:
        search_tools(registry, "convert")
        time.sleep(0.02)
    assert registry.path in lexical._CACHE
    for query, hits in before.items():
        assert search_tools(registry, query) == hits
    assert before["words text count"][0].tool == "count_words"


def test_a_registry_under_an_odd_path_is_read_too(tmp_path: Path) -> None:
    # URI syntax in the path ("?", "#", "%", a space) must not open another file.
    registry = _registry(Settings(home=tmp_path / "odd ?x=1#y %41"))
    path = registry.path
    current(path, 1, BM25_WEIGHTS)
    current(path, 1, BM25_WEIGHTS)
    assert lexical.wait(path, 30)
    assert len(lexical._CACHE[path].ids) == 8
