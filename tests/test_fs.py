"""Removing, copying and measuring trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from metaserver.fs import copy_tree, remove_tree, tree_bytes


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


@pytest.mark.parametrize("link", [True, False])
def test_copies_keep_links_and_content_and_share_inodes_only_when_asked(
    tmp_path: Path, link: bool
) -> None:
    source = tmp_path / "source"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("x = 1\n")
    (source / "alias").symlink_to("pkg")
    dest = tmp_path / "dest"

    copy_tree(source, dest, link=link)

    assert (dest / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert os.readlink(dest / "alias") == "pkg"
    shared = (dest / "pkg" / "mod.py").stat().st_ino == (source / "pkg" / "mod.py").stat().st_ino
    assert shared is link


def test_hard_links_are_measured_once(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a").write_bytes(b"x" * 1_000_000)
    single = tree_bytes(tree)
    os.link(tree / "a", tree / "b")
    assert tree_bytes(tree) == single >= 1_000_000
