"""Identical large files of two environments become one inode; nothing else changes."""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

from metaserver.agents.environment.shared_files import (
    pyc_key,
    share_identical_files,
    sweep_objects,
)
from metaserver.fs import remove_tree, tree_bytes

BIG = b"\x7fELF" + os.urandom(64 * 1024)
SMALL = "x = 1\n"


def environment(root: Path, extra: bytes = b"") -> Path:
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "lib" / "pkg" / "core.so").write_bytes(BIG)
    (root / "lib" / "pkg" / "data.bin").write_bytes(BIG + extra)
    (root / "lib" / "pkg" / "small.py").write_text(SMALL)
    (root / "lib" / "pkg" / "empty.py").write_text("")
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
    assert saved == 2 * len(BIG) + len(SMALL)  # core.so, bin/tool, small.py; not data.bin
    assert (first / "lib/pkg/data.bin").stat().st_ino != (second / "lib/pkg/data.bin").stat().st_ino
    # Same bytes, another mode: an executable is never shared with a data file.
    assert (second / "bin/tool").stat().st_ino != core_b.stat().st_ino
    assert (second / "bin/tool").stat().st_mode & 0o777 == 0o555
    # Small files are most of a package: shared too (both environments and the store).
    assert (second / "lib/pkg/small.py").stat().st_nlink == 3
    assert (second / "lib/pkg/empty.py").stat().st_nlink == 1  # nothing to save
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


def _compiled(root: Path, mode: py_compile.PycInvalidationMode) -> Path:
    package = root / "site" / "mod.py"
    package.parent.mkdir(parents=True)
    package.write_text("def where():\n    return __file__\n\nVALUE = 41 + 1\n")
    cached = py_compile.compile(str(package), invalidation_mode=mode, doraise=True)
    return Path(cached)


def test_bytecode_of_the_same_source_is_shared_though_its_bytes_differ(tmp_path: Path) -> None:
    checked = py_compile.PycInvalidationMode.CHECKED_HASH
    # Environments' paths differ in length too (their directories are named after servers).
    first, second = _compiled(tmp_path / "a", checked), _compiled(tmp_path / "bb", checked)
    # Each embeds the path it was compiled at: other bytes, the same validity.
    assert first.read_bytes() != second.read_bytes()
    assert pyc_key(first) == pyc_key(second) is not None

    objects = tmp_path / "objects"
    share_identical_files(tmp_path / "a", objects)
    share_identical_files(tmp_path / "bb", objects)
    assert first.stat().st_ino == second.stat().st_ino

    # The second environment imports the shared bytecode as its own: it is valid for its
    # source, and the code reports the second environment's path, not the first's.
    site = tmp_path / "bb" / "site"
    probe = "import mod; print(mod.VALUE, mod.where(), mod.where.__code__.co_filename)"
    env = {"PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert shown == ["42", str(site / "mod.py"), str(site / "mod.py")]


def test_timestamped_bytecode_is_shared_only_byte_for_byte(tmp_path: Path) -> None:
    stamped = _compiled(tmp_path / "a", py_compile.PycInvalidationMode.TIMESTAMP)
    assert pyc_key(stamped) is None
    assert pyc_key(tmp_path / "a" / "site" / "mod.py") is None


_HOLD = """
import sys
from pathlib import Path
from metaserver.registry.locks import store_lock
with store_lock(Path(sys.argv[1]), exclusive=False):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.mark.integration
def test_no_sweep_while_another_process_shares(tmp_path: Path) -> None:
    # Issue 28: a sweep saw an object's link count 1 while another process was linking it
    # into an environment, and deleted it: that file stayed unshared, the store lost it.
    objects = tmp_path / "objects"
    share_identical_files(environment(tmp_path / "a"), objects)
    remove_tree(tmp_path / "a")  # every object is garbage now, and about to be linked again
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(objects)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert sweep_objects(objects) == 0
        assert list(objects.glob("*/*"))
    finally:
        holder.communicate("", timeout=30)
    assert sweep_objects(objects) >= 2 * len(BIG)
