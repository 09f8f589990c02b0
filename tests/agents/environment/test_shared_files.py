"""Identical large files of two environments become one inode; nothing else changes."""

from __future__ import annotations

import os
from pathlib import Path

from metaserver.agents.environment.shared_files import (
    MIN_BYTES,
    share_identical_files,
    sweep_objects,
)
from metaserver.fs import remove_tree, tree_bytes

BIG = b"\x7fELF" + os.urandom(MIN_BYTES * 4)


def environment(root: Path, extra: bytes = b"") -> Path:
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "lib" / "pkg" / "core.so").write_bytes(BIG)
    (root / "lib" / "pkg" / "data.bin").write_bytes(BIG + extra)
    (root / "lib" / "pkg" / "small.py").write_text("x = 1\n")
    (root / "bin").mkdir()
    (root / "bin" / "tool").write_bytes(BIG)
    (root / "bin" / "tool").chmod(0o555)
    for path in root.rglob("*"):
        if path.is_file():
            path.chmod(path.stat().st_mode & ~0o222)  # frozen
    return root


def test_the_second_environment_links_what_the_first_holds(tmp_path: Path) -> None:
    objects = tmp_path / "objects"
    first = environment(tmp_path / "a")
    second = environment(tmp_path / "b", extra=b"different")

    # The first fills the store (its data.bin already repeats its core.so).
    assert share_identical_files(first, objects) == len(BIG)
    saved = share_identical_files(second, objects)

    core_a, core_b = first / "lib/pkg/core.so", second / "lib/pkg/core.so"
    assert core_a.stat().st_ino == core_b.stat().st_ino
    assert saved == 2 * len(BIG)  # core.so and bin/tool; data.bin differs
    assert (first / "lib/pkg/data.bin").stat().st_ino != (second / "lib/pkg/data.bin").stat().st_ino
    # Same bytes, another mode: an executable is never shared with a data file.
    assert (second / "bin/tool").stat().st_ino != core_b.stat().st_ino
    assert (second / "bin/tool").stat().st_mode & 0o777 == 0o555
    assert (second / "lib/pkg/small.py").stat().st_nlink == 1  # too small to bother
    assert core_b.read_bytes() == BIG
    assert tree_bytes(tmp_path / "a") + tree_bytes(tmp_path / "b") > tree_bytes(tmp_path)


def test_objects_nobody_links_are_swept(tmp_path: Path) -> None:
    objects = tmp_path / "objects"
    first = environment(tmp_path / "a")
    share_identical_files(first, objects)
    assert sweep_objects(objects) == 0  # all in use

    remove_tree(first)

    assert sweep_objects(objects) >= 2 * len(BIG)
    assert not list(objects.glob("*/*"))
