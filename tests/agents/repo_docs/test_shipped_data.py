"""The data files a repository ships for tests and examples (repo_docs.shipped_data)."""

from __future__ import annotations

import os
from pathlib import Path

from metaserver.agents.repo_docs.shipped_data import (
    MAX_SHIPPED_BYTES,
    shipped_data_files,
)


def test_data_under_test_and_example_folders_only(tmp_path: Path) -> None:
    files = {
        "tests/data/run.log": "x",
        "examples/water.xyz": "3",
        "tests/test_it.py": "code",
        "pkg/core.dat": "not in a data folder",
        "docs/guide.md": "prose",
        "tests/data/.hidden.csv": "hidden",
        "tests/data/big.bin": "",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    (tmp_path / "tests/data/big.bin").write_bytes(b"0" * (MAX_SHIPPED_BYTES + 1))
    os.symlink("/etc/hostname", tmp_path / "tests/data/link.txt")
    assert shipped_data_files(tmp_path) == ["examples/water.xyz", "tests/data/run.log"]
