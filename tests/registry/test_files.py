"""Deleting what a conversion left: its own directories only."""

from __future__ import annotations

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
from metaserver.registry.locks import deleting
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
