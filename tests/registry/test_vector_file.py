"""The vector file beside the registry: written whole, mapped read-only, rebuilt from SQLite
when missing, stale or corrupt, remapped when another process changed the registry."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from registry_records import server_record, tool_records

from metaserver.registry import vectors
from metaserver.registry.embeddings import DIMENSION, embedder
from metaserver.registry.records import ServerRecord
from metaserver.registry.search import search_tools
from metaserver.registry.store import Registry
from metaserver.registry.vector_file import load, settle, vector_path, write
from metaserver.registry.vectors import reduce, searchable_vectors
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


def _current(registry: Registry) -> vectors.ToolVectors:
    with registry._connect() as db:
        return searchable_vectors(db, registry.path)


def _rows(seed: int, tools: int) -> list[tuple[int, str, bytes]]:
    rng = np.random.default_rng(seed)
    return [
        (
            10 + i,
            f"s{i % 3}",
            rng.standard_normal((1 + i % 3, DIMENSION)).astype("<f4").tobytes(),
        )
        for i in range(tools)
    ]


def test_a_written_file_reads_back_and_only_at_its_generation(tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite3.vectors"
    rows = _rows(1, 7)
    written = write(path, 5, rows)
    settle()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # beside a private registry
    read = load(path, 5)
    assert read is not None and read.mapping is not None
    for stored in (written, read):
        assert stored.ids == [row[0] for row in rows]
        assert stored.servers == [row[1] for row in rows]
        assert stored.counts.tolist() == [1 + i % 3 for i in range(7)]
        assert stored.matrix.tobytes() == b"".join(row[2] for row in rows)
    assert load(path, 6) is None  # stale: the registry moved on
    assert load(tmp_path / "missing.vectors", 5) is None
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_a_rewrite_leaves_a_mapped_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite3.vectors"
    first = write(path, 1, _rows(1, 5))
    settle()
    before = first.matrix.copy()
    write(path, 2, _rows(2, 9))  # another process's registration
    settle()
    assert np.array_equal(first.matrix, before)  # the old pages, still mapped
    second = load(path, 2)
    assert second is not None and len(second.ids) == 9


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-3],  # truncated
        lambda data: b"NOTVECS!" + data[8:],  # another format
        lambda data: data + b"\0" * 4,  # longer than its header says
        lambda data: data[:-2] + b"{}",  # the server names not a list
        lambda data: data[:16] + b"\0" * 8 + data[24:],  # another dimension
        lambda data: b"",  # empty
    ],
)
def test_a_corrupt_file_is_not_mapped(tmp_path: Path, damage: object) -> None:
    path = tmp_path / "registry.sqlite3.vectors"
    write(path, 3, _rows(4, 6))
    settle()
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert load(path, 3) is None


def test_row_counts_that_disagree_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite3.vectors"
    write(path, 3, _rows(4, 6))
    settle()
    data = bytearray(path.read_bytes())
    counts_at = len(data) - len(b'["s0", "s1", "s2"]') - 6 * 4 - 6 * 8
    data[counts_at : counts_at + 8] = (0).to_bytes(8, "little")  # a tool of no rows
    data[counts_at + 8 : counts_at + 16] = (3).to_bytes(8, "little")  # the sum kept
    path.write_bytes(bytes(data))
    assert load(path, 3) is None


def test_search_writes_the_file_and_maps_its_rows(settings: Settings) -> None:
    registry = _registry(settings)
    found = _current(registry)
    assert found.mapping is not None
    settle()
    stored = load(vector_path(registry.path), found.generation)
    assert stored is not None
    assert found.matrix.tobytes() == stored.matrix.tobytes()
    assert found.ids.tolist() == stored.ids


@pytest.mark.parametrize("damage", ["missing", "corrupt", "stale"])
def test_a_missing_corrupt_or_stale_file_is_rebuilt_from_sqlite(
    settings: Settings, damage: str
) -> None:
    registry = _registry(settings)
    query = "add two integers"
    expected = search_tools(registry, query)
    before = _current(registry)
    settle()
    path = vector_path(registry.path)
    if damage == "missing":
        path.unlink()
    elif damage == "corrupt":
        path.write_bytes(path.read_bytes()[:-100])
    else:  # another generation's file under the current generation's name
        write(path, before.generation - 1, [(1, "x", bytes(4 * DIMENSION))])
        settle()
    vectors._CACHE.clear()  # a new process
    assert search_tools(registry, query) == expected
    settle()
    rebuilt = load(path, before.generation)
    assert rebuilt is not None and rebuilt.ids == before.ids.tolist()


def test_without_a_writable_file_the_rows_are_held_in_memory(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _registry(settings)
    query = "split a sentence into words"
    mapped = search_tools(registry, query)
    settle()
    vectors._CACHE.clear()
    vector_path(registry.path).unlink()

    def refused(*_: object) -> object:
        raise PermissionError("read-only home")

    monkeypatch.setattr(vectors, "write", refused)
    held = _current(registry)
    assert held.mapping is None
    assert search_tools(registry, query) == mapped  # the same hits and scores
    assert not vector_path(registry.path).exists()


def test_a_registration_by_another_process_is_remapped(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process registers a server and searches (writing the file of the new
    generation; it waits at exit for the file's rename): this process maps that file
    instead of reading SQLite again, when its held vectors cannot advance."""
    registry = _registry(settings)
    first = _current(registry)
    settle()
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[1])!r}]
        from test_vector_file import _server
        from metaserver.registry.search import search_tools
        from metaserver.registry.store import Registry
        from metaserver.settings import Settings
        settings = Settings(home={str(settings.home)!r})
        registry = Registry(settings.registry_path)
        registry.register(_server(settings, "chem", {{"isotope_mass": "Mass of an isotope."}}))
        assert search_tools(registry, "isotope mass")[0].tool == "isotope_mass"
        """
    )
    env = {**os.environ, "METASERVER_HOME": str(settings.home)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)

    def no_sqlite_read(*_: object) -> object:
        raise AssertionError("the other process's file should have been mapped")

    monkeypatch.setattr(vectors, "_stored", no_sqlite_read)
    # Held vectors that cannot advance by the change (tests/registry/test_vector_delta.py:
    # held ones that can keep their rows and read the added tools' only).
    monkeypatch.setattr(vectors, "_advanced", lambda *_: None)
    second = _current(registry)
    assert second.generation > first.generation and second.mapping is not None
    assert len(second.ids) == len(first.ids) + 1
    assert search_tools(registry, "isotope masses")[0].server == "chem"
    assert first.matrix.shape[0] < second.matrix.shape[0]  # the old map is still readable


def _mapped_kb(path: Path) -> int:
    """Resident kilobytes of this process's mappings of ``path``."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and not fields[0].endswith(":"):
            inside = len(fields) > 5 and fields[-1] == str(path)
        elif inside and fields[0] == "Rss:":
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's /proc only")
def test_a_search_leaves_no_rows_mapped(settings: Settings) -> None:
    registry = _registry(settings)
    found = _current(registry)
    assert found.mapping is not None
    assert _mapped_kb(vector_path(registry.path)) == 0  # the means read every row
    found.nearest(found.matrix[:2].copy(), None, 10, -1.0)
    assert _mapped_kb(vector_path(registry.path)) == 0


def test_the_reduced_means_in_blocks_are_the_whole_products_floats() -> None:
    rng = np.random.default_rng(11)
    basis = np.linalg.qr(rng.standard_normal((DIMENSION, 128)))[0].T.astype(np.float32)
    basis = np.ascontiguousarray(basis)
    for tools in (5000, 5001, 20011, 20480, 20481):
        centroids = rng.standard_normal((tools, DIMENSION)).astype(np.float32)
        whole = np.ascontiguousarray(centroids @ basis.T)
        assert reduce(centroids, basis).tobytes() == whole.tobytes()
