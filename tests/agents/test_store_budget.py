"""The stores of reusable environments and trees stay within one disk budget, LRU first."""

from __future__ import annotations

import os
import time
from pathlib import Path

from metaserver.agents.environment.cache import EnvironmentCache
from metaserver.agents.fetch.workspace_cache import WorkspaceCache, pypi_key
from metaserver.agents.store_budget import (
    IN_USE_SECONDS,
    enforce_budget,
    mark_used,
    read_entry,
)
from metaserver.contracts import Environment, Source, Workspace
from metaserver.fs import tree_bytes

MB = 1_000_000


def _filled(path: Path, megabytes: int) -> Path:
    path.mkdir(parents=True)
    (path / "blob").write_bytes(os.urandom(megabytes * MB))
    return path


def _used(entry: Path, seconds_ago: float) -> None:
    mark_used(entry)
    then = time.time() - seconds_ago
    os.utime(entry / "usage.json", (then, then))


def test_sizes_count_each_inode_once(tmp_path: Path) -> None:
    tree = _filled(tmp_path / "tree", 1)
    os.link(tree / "blob", tree / "same-blob")
    (tree / "link").symlink_to("/usr")  # not followed
    assert MB <= tree_bytes(tree) < 1.2 * MB


def test_least_recently_used_entries_go_first_and_entries_in_use_stay(tmp_path: Path) -> None:
    old, older, recent = (_filled(tmp_path / n, 1) for n in ("old", "older", "recent"))
    _used(older, 3 * IN_USE_SECONDS)
    _used(old, 2 * IN_USE_SECONDS)
    _used(recent, 60)

    deleted = enforce_budget([old, older, recent], max_bytes=int(2.5 * MB))
    assert [e.path for e in deleted] == [older]
    assert old.exists() and recent.exists()

    # A budget nothing fits: everything not in use goes, the entry in use stays.
    deleted = enforce_budget([old, recent], max_bytes=0)
    assert [e.path for e in deleted] == [old]
    assert recent.exists()


def test_an_entry_stored_before_sizes_were_recorded_is_measured(tmp_path: Path) -> None:
    entry = _filled(tmp_path / "legacy", 1)
    assert not (entry / "usage.json").exists()
    record = read_entry(entry)
    assert record.bytes >= MB and (entry / "usage.json").is_file()


def test_both_stores_record_size_and_use(tmp_path: Path) -> None:
    trees = WorkspaceCache(tmp_path / "workspaces")
    fetched = _filled(tmp_path / "fetched", 1)
    source = Source(kind="pypi", location="pkg", version="1.0", original="pypi:pkg==1.0")
    key = pypi_key("pkg", "1.0")
    trees.store(key, Workspace(source=source, path=fetched, distribution="pkg"))
    (stored,) = trees.entries()
    assert read_entry(stored).bytes >= MB
    os.utime(stored / "usage.json", (0, 0))
    assert trees.restore(key, tmp_path / "restored") is not None
    assert time.time() - read_entry(stored).used < 60  # a restore counts as a use

    environments = EnvironmentCache(tmp_path / "environments")
    venv = _filled(tmp_path / "venv", 1)
    environment = Environment(
        ok=True,
        strategy="source",
        python="3.11",
        python_path=venv / "bin" / "python",
        venv=venv,
        seconds=1.0,
    )
    environments.store("k" * 40, environment)
    (entry,) = environments.entries()
    assert read_entry(entry).bytes >= MB
    assert sorted(p.name for p in [*trees.entries(), *environments.entries()]) == sorted(
        [stored.name, entry.name]
    )
