"""The in-memory BM25 index after a registration or a removal: moved to the new generation
by what changed, the same arrays a read of the whole index makes (no processes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from registry_records import server_record, tool_records

from metaserver.registry import lexical
from metaserver.registry.lexical import LexicalIndex, current
from metaserver.registry.lexical_delta import indexed
from metaserver.registry.records import ServerRecord
from metaserver.registry.search import BM25_WEIGHTS, bm25_ranked
from metaserver.registry.store import Registry
from metaserver.settings import Settings


def _server(settings: Settings, name: str, tools: dict[str, str], source: str = "") -> ServerRecord:
    schema = {"value": {"type": "string"}}
    return server_record(settings, name, tool_records(tools, "pkg", schema), source)


def _registry(settings: Settings) -> Registry:
    registry = Registry(settings.registry_path)
    registry.register(
        _server(settings, "units", {"convert_units": "Convert units.", "run": "Run a model."})
    )
    registry.register(_server(settings, "text", {"count_words": "Count words in text."}))
    return registry


def _held(path: Path) -> LexicalIndex:
    """The index as a process holds it after its second search (read whole, stamped)."""
    lexical._CACHE.pop(path, None)
    lexical._BUILDING.add(path)
    lexical._build(path, BM25_WEIGHTS)
    index = lexical._CACHE[path]
    assert index.stamps is not None
    return index


def _generation(path: Path) -> int:
    db = sqlite3.connect(path)
    (generation,) = db.execute("SELECT generation FROM search_state").fetchone()
    db.close()
    return int(generation)


def _advanced(path: Path, held: LexicalIndex) -> LexicalIndex | None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        return held.advance(db, BM25_WEIGHTS, _generation(path))
    finally:
        db.close()


def _assert_read_alike(index: LexicalIndex, path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    read = LexicalIndex.read(db, BM25_WEIGHTS, _generation(path))
    assert index.generation == read.generation
    assert index.terms == read.terms
    assert index.servers.tolist() == read.servers.tolist()
    for name in ("ids", "lengths", "starts", "rows", "counts"):
        mine, theirs = getattr(index, name), getattr(read, name)
        assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes(), name
    for query in ("convert", "count words", "mass of an isotope", "run text"):
        assert bm25_ranked(db, query, None, 10, index) == bm25_ranked(db, query, None, 10)
    db.close()


def test_a_registration_and_a_removal_advance_the_index_as_a_read_makes_it(
    settings: Settings,
) -> None:
    registry = _registry(settings)
    held = _held(registry.path)
    registry.register(
        _server(settings, "chem", {"isotope_mass": "Mass of an isotope.", "mol": "Moles."})
    )
    registry.remove("text")  # its terms ("count", "words") leave the index with it
    advanced = _advanced(registry.path, held)
    assert advanced is not None
    assert "count" not in advanced.terms and "isotop" in advanced.terms
    _assert_read_alike(advanced, registry.path)


def test_a_server_registered_again_at_its_first_tools_ids_is_not_taken_for_them(
    settings: Settings,
) -> None:
    registry = _registry(settings)
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    held = _held(registry.path)
    # The same version replaced: its new tools get the ids its old ones had.
    registry.register(_server(settings, "chem", {"molar_mass": "Molar mass of a formula."}))
    advanced = _advanced(registry.path, held)
    assert advanced is not None and advanced.ids.tolist() == held.ids.tolist()
    assert "isotop" not in advanced.terms and "molar" in advanced.terms
    _assert_read_alike(advanced, registry.path)


def test_an_older_version_made_latest_again_is_read_whole(settings: Settings) -> None:
    registry = _registry(settings)
    registry.register(_server(settings, "units", {"gauge": "A gauge."}, source="test:units2"))
    held = _held(registry.path)
    versions = registry.versions("units")
    newest = next(v for v in versions if any(t.name == "gauge" for t in v.tools))
    assert newest.version_id is not None
    registry.remove("units", newest.version_id)  # the older version's rows return
    assert _advanced(registry.path, held) is None


def test_the_first_search_after_a_change_finds_the_advanced_index(settings: Settings) -> None:
    registry = _registry(settings)
    _held(registry.path)
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    index = current(registry.path, _generation(registry.path), BM25_WEIGHTS)
    assert index is not None and registry.path not in lexical._BUILDING
    _assert_read_alike(index, registry.path)


@pytest.mark.parametrize("rows", [0, 1])
def test_more_added_rows_than_the_bound_are_read_whole(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, rows: int
) -> None:
    monkeypatch.setattr(lexical, "ADDED_ROWS", rows)
    registry = _registry(settings)
    held = _held(registry.path)
    registry.register(
        _server(settings, "chem", {"isotope_mass": "Mass of an isotope.", "mol": "Moles."})
    )
    assert _advanced(registry.path, held) is None
    assert np.array_equal(held.ids, _held(registry.path).ids[: len(held.ids)])


def test_a_row_changed_in_place_is_read_whole(settings: Settings) -> None:
    registry = _registry(settings)
    held = _held(registry.path)
    db = sqlite3.connect(registry.path, isolation_level=None)
    db.execute("UPDATE tools SET description = 'Weigh isotopes.' WHERE name = 'count_words'")
    db.close()
    assert _advanced(registry.path, held) is None


def test_the_list_is_read_once_a_generation(settings: Settings) -> None:
    registry = _registry(settings)
    db = sqlite3.connect(registry.path, isolation_level=None)
    first = indexed(db)
    assert indexed(db) is first and not first.ids.flags.writeable  # shared, read-only
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    again = indexed(db)
    assert again is not first and len(again.ids) == len(first.ids) + 1
    db.execute("UPDATE tools SET description = 'Weigh.' WHERE name = 'run'")
    assert indexed(db).updates == (again.updates or 0) + 1
    db.close()
