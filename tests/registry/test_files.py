"""Deleting what a conversion left: its own directories only, read-only entries included."""

from __future__ import annotations

from pathlib import Path

from metaserver.registry.files import discard_conversion, remove_tree
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


def test_read_only_trees_are_removed_and_symlinks_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "keep.txt").parent.mkdir()
    (outside / "keep.txt").write_text("x")
    tree = tmp_path / "tree"
    (tree / "locked").mkdir(parents=True)
    (tree / "locked" / "file").write_text("x")
    (tree / "link").symlink_to(outside)
    (tree / "locked" / "file").chmod(0o444)
    (tree / "locked").chmod(0o555)

    remove_tree(tree)
    remove_tree(tree)  # absent: silent

    assert not tree.exists() and (outside / "keep.txt").exists()
