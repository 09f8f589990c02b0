"""The data files file examples read, copied into work/ (generate.data_files)."""

from __future__ import annotations

import os
from pathlib import Path

from metaserver.agents.generate.data_files import MAX_FILE_BYTES, copy_data_files, example_files
from metaserver.contracts import Example, Parameter, ToolSpec


def spec(*values: str, codec: str | None = "file") -> ToolSpec:
    return ToolSpec(
        name="read",
        description="Read a file.",
        target="pkg:read",
        parameters=[Parameter(name="fname", kind="positional_or_keyword", codec=codec)],
        examples=[Example(arguments={"fname": v}) for v in values],
    )


def test_only_regular_files_inside_the_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("a")
    (tmp_path / "secret").write_text("s")
    os.symlink(tmp_path / "secret", root / "data" / "link.txt")
    values = ["data/a.txt", "work://data/a.txt", "data/link.txt", "../secret", "/etc/hostname"]
    assert example_files([spec(*values)], root) == ["data/a.txt"]
    assert example_files([spec("data/a.txt", codec=None)], root) == []
    assert example_files([spec("data/a.txt", codec="path")], root) == ["data/a.txt"]


def test_copies_are_read_only_bounded_and_renderable_twice(tmp_path: Path) -> None:
    root, work = tmp_path / "repo", tmp_path / "work"
    (root / "data").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("a")
    (root / "data" / "big.bin").write_bytes(b"0" * (MAX_FILE_BYTES + 1))
    specs = [spec("data/a.txt", "data/big.bin")]
    assert copy_data_files(work, specs, root) == ["data/a.txt"]
    assert copy_data_files(work, specs, root) == ["data/a.txt"]  # over its read-only copy
    copied = work / "data" / "a.txt"
    assert copied.read_text() == "a" and not copied.stat().st_mode & 0o222
    assert not (work / "data" / "big.bin").exists()
