"""Deleting what a conversion left: its own directories only."""

from __future__ import annotations

from pathlib import Path

from metaserver.registry.files import discard_conversion
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
