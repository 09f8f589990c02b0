"""Deleting what a conversion left: its own directories only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from metaserver.registry.files import (
    ServerRemovedError,
    discard_conversion,
    hold_files,
    owned_paths,
    sweep_home,
    unregister,
    version_dirs,
)
from metaserver.registry.locks import ConversionLease, deleting
from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry
from metaserver.settings import Settings


def test_a_discarded_conversion_takes_its_directories_and_scratch_only(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    ours, theirs = [], []
    for parent in (settings.servers_dir, settings.environments_dir, settings.workspaces_dir):
        ours += [parent / "calc-aaaa", parent / ".calc-aaaa.repair"]
        theirs += [parent / "calc-bbbb", parent / "calcx-aaaa"]
    for path in ours + theirs:
        (path / "sub").mkdir(parents=True)

    deleted = discard_conversion(settings, "calc", "aaaa")

    assert sorted(deleted) == sorted(ours)
    assert not any(p.exists() for p in ours) and all(p.exists() for p in theirs)


def _registered(settings: Settings, name: str, token: str) -> ServerRecord:
    dirs = [parent / f"{name}-{token}" for parent in version_dirs(settings)]
    for path in dirs:
        (path / "sub").mkdir(parents=True)
    record = ServerRecord(
        name=name,
        source="test",
        commit="0" * 40,
        output_dir=dirs[0],
        python_path=dirs[1] / "bin" / "python",
        venv=dirs[1],
        workspace=dirs[2],
        generator_version="test",
    )
    return Registry(settings.registry_path).register(record).record


def test_a_removal_keeps_the_files_a_live_child_holds_until_the_next_sweep(
    tmp_path: Path,
) -> None:
    settings = Settings(home=tmp_path / "home")
    registry = Registry(settings.registry_path)
    record = _registered(settings, "calc", "aaaa")
    lease = hold_files(settings, record, registry)
    removed = unregister(settings, "calc")
    assert [r.version_id for r in removed] == ["aaaa"] and not registry.exists("calc")
    assert all(path.is_dir() for path in owned_paths(settings, record))
    # No new child starts from a removed version's files, even while they stay.
    with pytest.raises(ServerRemovedError, match="was removed"):
        hold_files(settings, record, registry)
    assert sweep_home(settings, registry) == []  # still held
    lease.release()
    assert sorted(sweep_home(settings, registry)) == sorted(owned_paths(settings, record))
    assert not any((settings.home / "locks" / "versions").iterdir())


def test_a_child_start_is_refused_while_its_files_are_deleted(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    registry = Registry(settings.registry_path)
    record = _registered(settings, "calc", "aaaa")
    with deleting(settings, "calc-aaaa") as free:
        assert free
        with pytest.raises(ServerRemovedError):
            hold_files(settings, record, registry)
    # Registered and not being deleted: the lease is had.
    hold_files(settings, record, registry).release()
    # Without a registry (a pool of unregistered test servers), only the lease is taken.
    registry.remove("calc")
    hold_files(settings, record, None).release()


KILLED_REPAIR = """
import os, sys, time
from pathlib import Path
from metaserver.registry.locks import ConversionLease
from metaserver.settings import Settings

settings = Settings(home=Path(sys.argv[1]))
lease = ConversionLease(settings, "dead1")
scratch = settings.environments_dir / ".calc-dead1.repair"
(scratch / "cache" / "archive").mkdir(parents=True)
(scratch / "cache" / "archive" / "x.py").write_text("")
os.chmod(scratch / "cache" / "archive", 0o555)  # read-only, as an install's cache leaves it
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.integration
def test_a_killed_conversions_repair_scratch_goes_with_the_next_sweep(tmp_path: Path) -> None:
    # Issue 28: a conversion killed during a repair install leaves its ``.repair`` scratch
    # (uv's cache and home); its lease died with it, so the next sweep removes it, while a
    # live conversion's scratch and a registered version stay.
    settings = Settings(home=tmp_path / "home")
    kept = _registered(settings, "calc", "aaaa")
    live = ConversionLease(settings, "live1")
    mine = settings.environments_dir / ".calc-live1.repair"
    (mine / "cache").mkdir(parents=True)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_REPAIR, str(settings.home)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        scratch = settings.environments_dir / ".calc-dead1.repair"
        # While its process lives, the scratch is a live conversion's: no sweep takes it.
        assert sweep_home(settings, Registry(settings.registry_path)) == []
        assert scratch.is_dir()
    finally:
        child.kill()
        child.wait()
    swept = sweep_home(settings, Registry(settings.registry_path))
    assert swept == [scratch] and not scratch.exists()
    assert mine.is_dir() and kept.output_dir.is_dir() and kept.venv is not None
    assert kept.venv.is_dir()
    live.release()
    assert sweep_home(settings, Registry(settings.registry_path)) == [mine]
