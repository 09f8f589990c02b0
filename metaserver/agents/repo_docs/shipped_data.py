"""The data files a repository ships for its tests and examples (``tests/data/run.log``,
``examples/water.xyz``): what proves a tool whose parameter reads a file when no example
names one (design/specs.py picks one by the extension its docs name; generate/data_files.py
copies it into the server's work/).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MAX_SHIPPED", "MAX_SHIPPED_BYTES", "shipped_data_files"]

MAX_SHIPPED = 200
MAX_SHIPPED_BYTES = 5_000_000
# Folders whose files are data for tests and examples, by their name's words.
_DATA_DIRS = {"data", "datasets", "test", "tests", "testing", "example", "examples", "sample"}
_DATA_DIRS |= {"samples", "fixtures", "resources", "testdata", "test_data", "example_data"}
_SKIP = {".git", ".tox", ".venv", "venv", "node_modules", "build", "dist", "__pycache__"}
_CODE = {".py", ".pyc", ".pyx", ".pxd", ".c", ".h", ".cpp", ".so", ".md", ".rst", ".toml"}
_CODE |= {".cfg", ".ini", ".in", ".sh", ".bat", ".ipynb", ".html", ".css", ".js", ".lock"}


def shipped_data_files(root: Path) -> list[str]:
    """Repository-relative paths of regular files under a data-like folder, not code or
    prose, at most ``MAX_SHIPPED_BYTES`` each, ``MAX_SHIPPED`` in all (shallowest first)."""
    found: list[tuple[int, str]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        relative = Path(folder).relative_to(root)
        if not any(part.lower() in _DATA_DIRS for part in relative.parts):
            continue
        for name in sorted(files):
            path = Path(folder) / name
            if name.startswith(".") or path.suffix.lower() in _CODE or not path.suffix:
                continue
            try:
                if path.is_symlink() or path.stat().st_size > MAX_SHIPPED_BYTES:
                    continue
            except OSError:
                continue
            found.append((len(relative.parts), (relative / name).as_posix()))
            if len(found) >= MAX_SHIPPED * 5:
                break
    return [path for _, path in sorted(found)[:MAX_SHIPPED]]
