"""Ranked tool search over the registry's FTS5 index (no processes are started)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from registry_records import server_record

from metaserver.registry.embeddings import MODEL_ID, blob_rows, tool_vectors
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.schema import drop_search_index
from metaserver.registry.search import (
    TURN,
    WHOLE_TURN,
    ToolHit,
    bm25_ranked,
    interleave,
    search_tools,
)
from metaserver.registry.store import SCHEMA_VERSION, Registry
from metaserver.settings import Settings


def _tool(name: str, description: str, params: dict[str, str] | None = None) -> ToolRecord:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {p: {"type": "string", "description": d} for p, d in (params or {}).items()},
    }
    return ToolRecord(
        name=name,
        description=description,
        target=f"pkg.mod:{name}",
        input_schema=schema,
        definition_hash=name,
    )


def _server(settings: Settings, name: str, tools: list[ToolRecord]) -> ServerRecord:
    return server_record(settings, name, tools)


def _registry(settings: Settings) -> Registry:
    registry = Registry(settings.registry_path)
    registry.register(
        _server(
            settings,
            "mathlib",
            [
                _tool("add_numbers", "Add two integers and return the sum.", {"a": "first"}),
                _tool("integrate", "Integrate a symbolic expression.", {"expr": "expression"}),
                _tool("mean", "Arithmetic mean of values.", {"values": "numbers to average"}),
            ],
        )
    )
    registry.register(
        _server(
            settings,
            "textkit",
            [
                _tool("split_words", "Split text into words.", {"text": "the sentence"}),
                _tool("word_count", "Count how often each word occurs.", {"text": "input"}),
                _tool("slugify", "Make a URL slug.", {"title": "a page heading to convert"}),
            ],
        )
    )
    return registry


def _names(hits: list[ToolHit]) -> list[str]:
    return [f"{hit.server}/{hit.tool}" for hit in hits]


def test_query_ranks_the_matching_tool_first(settings: Settings) -> None:
    registry = _registry(settings)
    assert _names(search_tools(registry, "integrate"))[0] == "mathlib/integrate"
    assert _names(search_tools(registry, "count words"))[0] == "textkit/word_count"
    # Snake_case names are split, so a word of the name matches.
    assert _names(search_tools(registry, "numbers add"))[0] == "mathlib/add_numbers"
    # Stemmed prefixes: "integration" and "slug" find integrate and slugify.
    assert _names(search_tools(registry, "integration"))[0] == "mathlib/integrate"
    assert _names(search_tools(registry, "slug"))[0] == "textkit/slugify"


def test_parameter_descriptions_are_searched(settings: Settings) -> None:
    hits = search_tools(_registry(settings), "heading")
    assert _names(hits) == ["textkit/slugify"]
    assert hits[0].score is not None and hits[0].score > 0
    assert hits[0].input_schema["properties"]["title"]["type"] == "string"


def test_exact_tool_name_wins(settings: Settings) -> None:
    hits = search_tools(_registry(settings), "word_count")
    assert _names(hits)[0] == "textkit/word_count"
    assert _names(search_tools(_registry(settings), "textkit_split_words"))[0] == (
        "textkit/split_words"
    )


def test_scores_are_ordered_and_limit_and_server_filter_apply(settings: Settings) -> None:
    registry = _registry(settings)
    hits = search_tools(registry, "text words", limit=10)
    scores = [hit.score for hit in hits if hit.score is not None]
    assert scores == sorted(scores, reverse=True)
    assert len(search_tools(registry, "text words", limit=1)) == 1
    only = search_tools(registry, "words text", server="mathlib")
    assert all(hit.server == "mathlib" for hit in only)


def test_bm25_keeps_to_the_server_asked_for(settings: Settings) -> None:
    registry = _registry(settings)
    with registry._connect() as db:
        servers = dict(db.execute("SELECT id, server FROM tools").fetchall())
        every = bm25_ranked(db, "words of a text to average", None, 100)
        textkit = bm25_ranked(db, "words of a text to average", "textkit", 100)
        assert {servers[i] for i in every} == {"mathlib", "textkit"}
        # The same order as the unfiltered ranking, less the other server's tools.
        assert textkit == [i for i in every if servers[i] == "textkit"] and textkit
        assert bm25_ranked(db, "slug heading", "mathlib", 100) == []


def test_a_server_without_tools_finds_nothing(settings: Settings) -> None:
    registry = _registry(settings)
    # The embedding's first pass has no candidate left: no hit, and no error.
    assert search_tools(registry, "integrate an expression", server="nobody") == []


def test_no_query_lists_everything_unranked(settings: Settings) -> None:
    registry = _registry(settings)
    hits = search_tools(registry, None)
    assert _names(hits) == [
        "mathlib/add_numbers",
        "mathlib/integrate",
        "mathlib/mean",
        "textkit/slugify",
        "textkit/split_words",
        "textkit/word_count",
    ]
    assert all(hit.score is None for hit in hits)
    assert _names(search_tools(registry, None, server="textkit", limit=2)) == [
        "textkit/slugify",
        "textkit/split_words",
    ]
    # Text with no words at all is no query.
    assert len(search_tools(registry, "  !!! ")) == 6
    assert search_tools(registry, None, limit=0) == []


def test_query_syntax_is_inert(settings: Settings) -> None:
    registry = _registry(settings)
    for query in ['"unbalanced', "NEAR(a b", "mean AND (", "* OR -", "col:mean", "^mean"]:
        search_tools(registry, query)  # no FTS5 syntax error escapes
    assert _names(search_tools(registry, '"mean*'))[0] == "mathlib/mean"


def test_index_follows_register_and_remove(settings: Settings) -> None:
    registry = _registry(settings)
    registry.remove("textkit")
    assert search_tools(registry, "slug") == []
    registry.register(_server(settings, "mathlib", [_tool("median", "Median of values.")]))
    assert _names(search_tools(registry, None)) == ["mathlib/median"]
    assert search_tools(registry, "integrate") == []
    assert _names(search_tools(registry, "median")) == ["mathlib/median"]


def test_missing_registry_gives_nothing(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "none.sqlite3")
    assert search_tools(registry, "anything") == []
    assert search_tools(registry, None) == []
    assert not registry.path.exists()


def test_a_version_1_registry_is_indexed_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE servers (name TEXT PRIMARY KEY, source TEXT NOT NULL, commit_sha TEXT,
            version TEXT, output_dir TEXT NOT NULL, python_path TEXT NOT NULL,
            venv TEXT NOT NULL, environment_lock TEXT NOT NULL DEFAULT '',
            generator_version TEXT NOT NULL, report TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL);
        CREATE TABLE tools (server TEXT NOT NULL REFERENCES servers(name) ON DELETE CASCADE,
            name TEXT NOT NULL, description TEXT NOT NULL, target TEXT NOT NULL,
            input_schema TEXT NOT NULL, definition_hash TEXT NOT NULL,
            evidence TEXT NOT NULL DEFAULT 'null', PRIMARY KEY (server, name));
        PRAGMA user_version=1;
        """
    )
    db.execute("INSERT INTO servers VALUES ('old','s',NULL,NULL,'/o','/p','/v','','g','{}',1.0)")
    db.execute(
        "INSERT INTO tools VALUES ('old','fibonacci','Fibonacci numbers.','m:f',?,'h','null')",
        (json.dumps({"type": "object", "properties": {"n": {"description": "how many"}}}),),
    )
    db.commit()
    db.close()
    hits = search_tools(Registry(path), "fibonacci")
    assert _names(hits) == ["old/fibonacci"]
    assert _names(search_tools(Registry(path), "many")) == ["old/fibonacci"]
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert check.execute("SELECT count(*) FROM tools_fts").fetchone()[0] == 1


def _stored(path: Path) -> dict[str, tuple[bytes | None, str | None]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name, embedding, embedding_model FROM tools").fetchall()
    return {name: (blob, model) for name, blob, model in rows}


def test_registration_stores_each_tools_embedding(settings: Settings) -> None:
    registry = _registry(settings)
    stored = _stored(registry.path)
    assert len(stored) == 6
    # No requests were given: the registry wrote them from the name, server and parameters,
    # and embedded them after the description.
    requests = ["integrate with mathlib", "integrate by expr"]
    tool = {t.name: t for t in registry.get("mathlib").tools}["integrate"]
    assert tool.requests == requests
    expected = tool_vectors([("integrate", "Integrate a symbolic expression.", requests)])
    assert expected is not None
    assert stored["integrate"] == (expected[0], MODEL_ID)


def test_given_example_requests_are_stored_indexed_and_embedded(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _registry(settings)
    tool = _tool("forecast", "Temperature outlook for a city.").model_copy(
        update={"requests": ["  will it rain in Paris\ntomorrow ", "", "umbrella needed today"]}
    )
    registry.register(_server(settings, "weather", [tool]))
    stored = {t.name: t for t in registry.get("weather").tools}["forecast"]
    assert stored.requests == ["will it rain in Paris tomorrow", "umbrella needed today"]
    assert blob_rows(_stored(registry.path)["forecast"][0] or b"") == 3
    # BM25 alone (no model) finds the tool by a word only its requests hold.
    import metaserver.registry.embeddings as embeddings

    monkeypatch.setattr(embeddings, "embedder", lambda: None)
    assert _names(search_tools(registry, "umbrella"))[0] == "weather/forecast"


def test_a_request_without_shared_words_is_found_by_meaning(settings: Settings) -> None:
    registry = _registry(settings)
    registry.register(
        _server(
            settings,
            "weather",
            [_tool("forecast", "Temperature and precipitation outlook for a city.")],
        )
    )
    query = "will it rain in Paris tomorrow"
    with sqlite3.connect(registry.path) as db:  # BM25 alone finds nothing
        assert (
            db.execute(
                "SELECT count(*) FROM tools_fts WHERE tools_fts MATCH 'rain* OR paris*'"
            ).fetchone()[0]
            == 0
        )
    assert _names(search_tools(registry, query))[0] == "weather/forecast"


def test_ranking_uses_the_stored_vectors(settings: Settings) -> None:
    registry = _registry(settings)
    query = "arithmetic average of a list"
    assert _names(search_tools(registry, query))[0] == "mathlib/mean"
    # Give `slugify` the stored vector of the query itself and `mean` an unrelated one: the
    # ranking follows what is stored (bumping the generation, as any write does).
    vectors = tool_vectors([("x", query, []), ("x", "make a URL slug", [])])
    assert vectors is not None
    with sqlite3.connect(registry.path) as db:
        db.execute("UPDATE tools SET embedding = ? WHERE name = 'slugify'", (vectors[0],))
        db.execute("UPDATE tools SET embedding = ? WHERE name = 'mean'", (vectors[1],))
    ranked = _names(search_tools(registry, query))
    assert ranked.index("textkit/slugify") < ranked.index("mathlib/mean")


def test_a_change_by_another_process_reaches_a_cached_search(settings: Settings) -> None:
    registry = _registry(settings)
    assert "chem/isotope_mass" not in _names(search_tools(registry, "isotope masses"))
    other = Registry(settings.registry_path)  # as `metaserver convert` in another process
    other.register(
        _server(settings, "chem", [_tool("isotope_mass", "Mass of an isotope of an element.")])
    )
    assert _names(search_tools(registry, "isotope masses of elements"))[0] == "chem/isotope_mass"
    other.remove("chem")
    assert "chem/isotope_mass" not in _names(search_tools(registry, "isotope masses"))


def test_search_without_a_model_uses_bm25_alone(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import metaserver.registry.embeddings as embeddings

    monkeypatch.setattr(embeddings, "embedder", lambda: None)
    registry = _registry(settings)
    assert all(blob is None for blob, _ in _stored(registry.path).values())
    assert _names(search_tools(registry, "count words"))[0] == "textkit/word_count"
    assert search_tools(registry, "will it rain in Paris tomorrow") == []
    monkeypatch.undo()
    # With the model back, the first search computes the missing vectors once.
    assert _names(search_tools(registry, "arithmetic average"))[0] == "mathlib/mean"
    assert all(model == MODEL_ID for _, model in _stored(registry.path).values())


def test_a_version_3_registry_gets_embeddings(settings: Settings) -> None:
    registry = _registry(settings)
    # Make it what version 3 wrote: no vector columns, no search state.
    with sqlite3.connect(registry.path) as db:
        for trigger in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%generation'"
        ).fetchall():
            db.execute(f"DROP TRIGGER {trigger[0]}")
        db.execute("DROP TABLE search_state")
        drop_search_index(db)
        db.execute("ALTER TABLE tools DROP COLUMN embedding")
        db.execute("ALTER TABLE tools DROP COLUMN embedding_model")
        db.execute("ALTER TABLE tools DROP COLUMN requests")
        _create_v4_index(db)
        db.execute("PRAGMA user_version=3")
    reopened = Registry(settings.registry_path)
    assert _names(search_tools(reopened, "arithmetic average"))[0] == "mathlib/mean"
    with sqlite3.connect(registry.path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT generation FROM search_state").fetchone()[0] > 0
    stored = _stored(registry.path)
    assert len(stored) == 6 and all(model == MODEL_ID for _, model in stored.values())
    # And it keeps working as a current registry: the index follows new registrations.
    reopened.register(_server(settings, "chem", [_tool("isotope_mass", "Mass of an isotope.")]))
    assert _names(search_tools(reopened, "isotope"))[0] == "chem/isotope_mass"
    assert _stored(registry.path)["isotope_mass"][1] == MODEL_ID


def _create_v4_index(db: sqlite3.Connection) -> None:
    """The search index as versions 2 to 4 had it (no requests column), filled."""
    db.execute(
        "CREATE VIRTUAL TABLE tools_fts USING fts5(server UNINDEXED, tool UNINDEXED, words,"
        " description, parameters, origin, tokenize = 'porter unicode61')"
    )
    db.execute(
        "INSERT INTO tools_fts (rowid, server, tool, words, description, parameters, origin)"
        " SELECT id, server, name, replace(name, '_', ' '), description,"
        " '', server FROM tools"
    )


def test_a_version_4_registry_gets_example_requests(settings: Settings) -> None:
    registry = _registry(settings)
    # Make it what version 4 wrote: no requests, an index without them, vectors of one text.
    old_vectors = tool_vectors([("mean", "Arithmetic mean of values.", [])])
    assert old_vectors is not None
    with sqlite3.connect(registry.path) as db:
        drop_search_index(db)
        db.execute("ALTER TABLE tools DROP COLUMN requests")
        _create_v4_index(db)
        db.execute(
            "UPDATE tools SET embedding = ?, embedding_model = 'all-MiniLM-L6-v2-int8'",
            (old_vectors[0],),
        )
        db.execute("PRAGMA user_version=4")
    reopened = Registry(settings.registry_path)
    tools = {t.name: t for t in reopened.get("mathlib").tools}
    assert tools["mean"].requests == ["mean with mathlib", "mean by values"]
    with sqlite3.connect(registry.path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexed = dict(db.execute("SELECT tool, requests FROM tools_fts").fetchall())
    assert indexed["mean"] == "mean with mathlib mean by values"
    assert _names(search_tools(reopened, "arithmetic average"))[0] == "mathlib/mean"
    # The first search embedded every tool again, with its requests.
    stored = _stored(registry.path)
    assert all(model == MODEL_ID for _, model in stored.values())
    assert blob_rows(stored["mean"][0] or b"") == 3


def test_multi_part_requests_get_a_tool_for_each_part(settings: Settings) -> None:
    registry = _registry(settings)
    registry.register(
        _server(
            settings,
            "files",
            [
                _tool(
                    "write_file", "Create or overwrite a file with new content.", {"path": "where"}
                ),
                _tool("list_directory", "List the entries of a directory.", {"path": "where"}),
            ],
        )
    )
    hits = search_tools(
        registry,
        "Count how often each word occurs in my essay and save it to /tmp/counts.md",
        limit=3,
    )
    names = _names(hits)
    assert "textkit/word_count" in names and "files/write_file" in names
    assert hits[0].score == 1.0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_repeated_name_comes_after_the_names_not_listed_yet(settings: Settings) -> None:
    registry = _registry(settings)
    for server in ("files", "desktop"):
        registry.register(
            _server(
                settings,
                server,
                [_tool("write_file", "Write text content to a file.", {"path": "where"})],
            )
        )
    registry.register(
        _server(
            settings,
            "notes",
            [_tool("write_note", "Write a note into the knowledge base.", {"title": "its title"})],
        )
    )
    query = "write text content to a file"
    names = [hit.tool for hit in search_tools(registry, query, limit=10)]
    # Both write_file tools rank above write_note by their own scores; the second one waits.
    assert names[0] == "write_file" and names.count("write_file") == 2
    assert names.index("write_note") < len(names) - 1 - names[::-1].index("write_file")
    assert len(set(names[:2])) == 2
    # A name asked for exactly lists every tool of that name first.
    exact = _names(search_tools(registry, "write_file", limit=2))
    assert sorted(exact) == ["desktop/write_file", "files/write_file"]


def test_needs_take_turns_and_the_whole_requests_places_cost_less() -> None:
    whole = {1: 4.0, 2: 3.9, 3: 3.8}  # the whole request: tools 1, 2, 3
    clause = {4: 2.0, 5: 1.99, 1: 0.5}  # a clause: tools 4, 5 (and 1, far behind)
    merged, first = interleave([whole, clause])
    order = sorted(merged, key=lambda tool: -merged[tool])
    # Each need's top tool first, then the whole request's second ahead of the clause's.
    assert order[:2] in ([1, 4], [4, 1])
    assert order[2:4] == [2, 5]
    assert merged[2] == 3.9 / 4.0 - WHOLE_TURN
    assert merged[5] == 1.99 / 2.0 - TURN
    # A tool's best need counts: tool 1 is first in the whole request.
    assert merged[1] == 1.0
    assert first == {tool: score / 4.0 for tool, score in whole.items()}
    assert interleave([{}, clause])[0][4] == 1.0
