"""Staging leases: what a killed conversion left in staging is removed by the next one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from metaserver.agents.fetch.staging import (
    ORPHAN_GRACE_SECONDS,
    OWNER_SUFFIX,
    discard_staged,
    owner_alive,
    process_start,
    staging_lease,
    sweep_staging,
)


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _leave(staging: Path, name: str, pid: int, start: str | None) -> Path:
    entry = staging / name
    (entry / "pkg").mkdir(parents=True)
    (staging / f"{name}.owner").write_text(json.dumps({"pid": pid, "start": start}))
    return entry


def test_entries_of_dead_owners_go_and_live_ones_stay(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    dead = _leave(staging, "fetch-dead", _dead_pid(), "1")
    mine = _leave(staging, "fetch-live", os.getpid(), process_start(os.getpid()))
    # The same pid, started at another time: a reused pid is not the owner.
    reused = _leave(staging, "fetch-reused", os.getpid(), "0")
    unowned_old = staging / "fetch-old"
    unowned_old.mkdir()
    past = time.time() - ORPHAN_GRACE_SECONDS - 5
    os.utime(unowned_old, (past, past))
    unowned_new = staging / "fetch-new"
    unowned_new.mkdir()

    swept = sweep_staging(staging)
    assert {p.name for p in swept} == {"fetch-dead", "fetch-reused", "fetch-old"}
    assert not dead.exists() and not reused.exists() and not unowned_old.exists()
    assert mine.exists() and unowned_new.exists()
    assert sorted(p.name for p in staging.iterdir()) == [
        "fetch-live",
        "fetch-live.owner",
        "fetch-new",
    ]
    assert owner_alive(staging / "fetch-live.owner")
    assert not owner_alive(staging / "fetch-missing.owner")


def test_lease_sweeps_first_and_is_dropped_when_the_entry_is_gone(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    _leave(staging, "fetch-dead", _dead_pid(), "1")
    with staging_lease(staging / "fetch-mine") as entry:
        assert not (staging / "fetch-dead").exists()
        assert owner_alive(staging / "fetch-mine.owner")
        entry.mkdir()
        entry.rename(tmp_path / "moved")  # what the pipeline does with a fetched tree
    assert not any(staging.iterdir())

    with staging_lease(staging / "fetch-kept") as entry:
        entry.mkdir()
    # Still there on the way out (the caller moves it next): the lease stays with it.
    assert (staging / "fetch-kept.owner").exists()
    assert sweep_staging(staging) == []  # its owner (this process) is alive


def test_a_discarded_tree_takes_its_lease_with_it(tmp_path: Path) -> None:
    entry = tmp_path / "staging" / "fetch-abc"
    (entry / "pkg").mkdir(parents=True)
    owner = entry.with_name(entry.name + OWNER_SUFFIX)
    owner.write_text("{}")
    other = tmp_path / "staging" / "fetch-other"
    other.mkdir()
    discard_staged(entry)
    assert not entry.exists() and not owner.exists()
    assert other.is_dir()
    discard_staged(entry)  # gone already: nothing to do, nothing raised
