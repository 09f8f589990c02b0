"""Search's held vectors after a registration or a removal: moved to the new generation by
what changed (the added tools' rows read, the others' rows and means kept), the same ids,
rows, means and rankings as a rebuild from SQLite."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from registry_records import server_record, tool_records

from metaserver.registry import vectors
from metaserver.registry.embeddings import DIMENSION, embedder
from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry
from metaserver.registry.vector_file import vector_path
from metaserver.registry.vectors import ToolVectors, reduce, searchable_vectors
from metaserver.settings import Settings

pytestmark = pytest.mark.skipif(embedder() is None, reason="no embedding model installed")


def _server(settings: Settings, name: str, tools: dict[str, str]) -> ServerRecord:
    return server_record(settings, name, tool_records(tools))


def _registry(settings: Settings) -> Registry:
    registry = Registry(settings.registry_path)
    registry.register(
        _server(settings, "mathlib", {"add_numbers": "Add two integers.", "mean": "Mean."})
    )
    registry.register(
        _server(settings, "textkit", {"split_words": "Split text into words.", "slug": "Slug."})
    )
    return registry


def _current(registry: Registry) -> ToolVectors:
    with registry._connect() as db:
        return searchable_vectors(db, registry.path)


def _rebuilt(registry: Registry) -> ToolVectors:
    """The vectors as a process that holds none reads them: from SQLite, every row."""
    vectors._CACHE.pop(registry.path, None)
    vector_path(registry.path).unlink(missing_ok=True)
    return _current(registry)


def _no_full_read(*_: object) -> object:
    raise AssertionError("the held vectors should have been advanced, not reread")


def _assert_same(advanced: ToolVectors, rebuilt: ToolVectors) -> None:
    assert advanced.generation == rebuilt.generation
    assert advanced.ids.tolist() == rebuilt.ids.tolist()
    assert advanced.servers.tolist() == rebuilt.servers.tolist()
    assert advanced.counts.tolist() == rebuilt.counts.tolist()
    for tool in range(len(rebuilt.ids)):
        begin, count = advanced.starts[tool], advanced.counts[tool]
        mine = advanced.take(np.arange(begin, begin + count))
        start = rebuilt.starts[tool]
        assert mine.tobytes() == rebuilt.matrix[start : start + count].tobytes()
    every = np.arange(len(rebuilt.ids))
    assert advanced.means(every).tobytes() == rebuilt.means(every).tobytes()
    for name in ("centroids", "reduced", "basis"):
        mine, theirs = getattr(advanced, name), getattr(rebuilt, name)
        assert (mine is None) == (theirs is None), name
        assert mine is None or mine.tobytes() == theirs.tobytes(), name
    queries = np.ascontiguousarray(rebuilt.matrix[[0, -1]])
    assert advanced.nearest(queries, None, 10, -1.0) == rebuilt.nearest(queries, None, 10, -1.0)
    assert advanced.nearest(queries, "chem", 10, -1.0) == rebuilt.nearest(queries, "chem", 10, -1.0)


@pytest.mark.parametrize("reduce_from", [vectors.REDUCE_FROM, 3])
def test_a_registration_advances_the_held_vectors_as_a_rebuild_reads_them(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, reduce_from: int
) -> None:
    # 3: the first pass reads reduced means, as at 20,000 tools and more.
    monkeypatch.setattr(vectors, "REDUCE_FROM", reduce_from)
    registry = _registry(settings)
    first = _current(registry)
    model = embedder()
    registry.register(
        _server(settings, "chem", {"isotope_mass": "Mass of an isotope.", "mol": "Moles."})
    )
    monkeypatch.setattr(vectors, "_stored", _no_full_read)
    advanced = _current(registry)
    assert advanced.generation > first.generation
    assert advanced.matrix is first.matrix  # the held rows, not reread
    assert advanced.extra is not None and len(advanced.extra) > 0
    assert embedder() is model  # the loaded model stays loaded
    monkeypatch.undo()
    monkeypatch.setattr(vectors, "REDUCE_FROM", reduce_from)
    _assert_same(advanced, _rebuilt(registry))


def test_a_removal_and_a_second_registration_advance_too(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _registry(settings)
    _current(registry)
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    _current(registry)
    registry.remove("mathlib")
    registry.register(_server(settings, "chem", {"molar_mass": "Molar mass of a formula."}))
    monkeypatch.setattr(vectors, "_stored", _no_full_read)
    advanced = _current(registry)
    assert "mathlib" not in advanced.servers.tolist()
    assert advanced.servers.tolist().count("chem") == 1
    monkeypatch.undo()
    _assert_same(advanced, _rebuilt(registry))


def test_a_change_that_is_no_append_is_read_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _registry(settings)
    first = _current(registry)
    # A held tool's vectors rewritten in place (as under another model): not to be trusted.
    db = sqlite3.connect(registry.path, isolation_level=None)
    (tool,) = db.execute("SELECT min(id) FROM tools").fetchone()
    db.execute(
        "UPDATE tools SET embedding = ? WHERE id = ?",
        (np.ones((5, DIMENSION), dtype="<f4").tobytes(), tool),
    )
    db.close()
    read: list[int] = []
    full_read = vectors._stored

    def counted(*arguments: object) -> object:
        read.append(1)
        return full_read(*arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors, "_stored", counted)
    again = _current(registry)
    assert read and again.extra is None and again.matrix is not first.matrix


def test_too_many_added_rows_are_read_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "EXTRA_ROWS", 1)
    registry = _registry(settings)
    _current(registry)
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    assert _current(registry).extra is None


def test_a_few_rows_reduce_to_the_floats_of_their_block() -> None:
    rng = np.random.default_rng(5)
    basis = np.linalg.qr(rng.standard_normal((DIMENSION, 128)))[0].T.astype(np.float32)
    basis = np.ascontiguousarray(basis)
    centroids = rng.standard_normal((6000, DIMENSION)).astype(np.float32)
    whole = reduce(centroids, basis)
    for few in (1, 3, 40):
        assert reduce(centroids[-few:], basis).tobytes() == whole[-few:].tobytes()


def test_tools_registered_without_vectors_are_filled_then_read_whole(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import metaserver.registry.embeddings as embeddings

    registry = _registry(settings)
    _current(registry)
    monkeypatch.setattr(embeddings, "embedder", lambda: None)
    registry.register(_server(settings, "chem", {"isotope_mass": "Mass of an isotope."}))
    monkeypatch.undo()
    found = _current(registry)  # the delta refuses a tool with no vectors: filled, reread
    assert "chem" in found.servers.tolist() and found.extra is None
    _assert_same(found, _rebuilt(registry))
