"""Compiled bytecode renamed to where the sandbox shows its source (probe/bytecode_paths.py)."""

from __future__ import annotations

import marshal
import os
import py_compile
import subprocess
import sys
from importlib.util import cache_from_source
from pathlib import Path

from metaserver.probe.bytecode_paths import HEADER, rename_tree

MODULE = "def outer():\n    def inner():\n        return 1\n    return inner\n"


def _compiled(root: Path) -> tuple[Path, Path]:
    source = root / "lib" / "pkg" / "mod.py"
    source.parent.mkdir(parents=True)
    source.write_text(MODULE)
    cached = Path(cache_from_source(str(source)))
    py_compile.compile(str(source), cfile=str(cached), doraise=True)
    return source, cached


def _filenames(cached: Path) -> list[str]:
    code = marshal.loads(cached.read_bytes()[HEADER:])
    outer = next(c for c in code.co_consts if hasattr(c, "co_filename"))
    inner = next(c for c in outer.co_consts if hasattr(c, "co_filename"))
    return [code.co_filename, outer.co_filename, inner.co_filename]


def test_every_code_object_names_the_shown_path_and_the_header_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "env"
    source, cached = _compiled(root)
    header = cached.read_bytes()[:HEADER]
    linked = tmp_path / "shared.pyc"
    os.link(cached, linked)  # a file the base layer or another environment shares
    assert _filenames(cached) == [str(source)] * 3

    assert rename_tree(str(root), "/venv") == 1

    assert _filenames(cached) == ["/venv/lib/pkg/mod.py"] * 3
    assert cached.read_bytes()[:HEADER] == header  # still valid for its source
    assert _filenames(linked) == [str(source)] * 3  # the shared file untouched
    assert rename_tree(str(root), "/venv") == 0  # once is enough


def test_the_renamed_file_is_what_python_loads(tmp_path: Path) -> None:
    root = tmp_path / "env"
    source, cached = _compiled(root)
    rename_tree(str(root), "/venv")
    before = cached.read_bytes()
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import mod; "
        "print(mod.outer().__code__.co_filename)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script, str(source.parent)],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # Loaded from its real place, the import system names that place, and the .pyc was
    # used as it is (not compiled again: its bytes are unchanged).
    assert shown == str(source)
    assert cached.read_bytes() == before
