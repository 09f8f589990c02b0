"""The repository's data files that tools' examples read, in the server's work/ directory.

A tool whose parameter reads a file (codec ``file``, probe/arguments.py) is proven on the
files the package ships: a doctest's ``read_log("tests/data/run.log")`` names one by its
path in the repository. The generated server runs without the repository's tree, in
work/, so each such file is copied to ``work/<the same path>``, read-only (a tool run must
not change the evidence another run reads), and bounded in size.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from metaserver.contracts import JSON, ToolSpec

__all__ = ["MAX_DATA_BYTES", "MAX_FILE_BYTES", "copy_data_files", "example_files"]

MAX_FILE_BYTES = 5_000_000
MAX_DATA_BYTES = 50_000_000
WORK_SCHEME = "work://"
_READ = {"file", "path"}
"""The codecs of parameters that name a file: a path one may read as well as write."""


def example_files(specs: list[ToolSpec], root: Path) -> list[str]:
    """The repository-relative paths that examples pass to ``file`` and ``path``
    parameters and that are regular files inside ``root`` (no link, nothing outside it), in
    first-seen order."""
    found: dict[str, None] = {}
    resolved_root = root.resolve()
    for spec in specs:
        names = {p.name for p in spec.parameters if (p.codec or "").lstrip("?") in _READ}
        for example in spec.examples if names else []:
            for name in names:
                relative = _relative(example.arguments.get(name))
                if relative is not None and _inside(root / relative, resolved_root):
                    found.setdefault(relative)
    return list(found)


def copy_data_files(work: Path, specs: list[ToolSpec], root: Path) -> list[str]:
    """Copy ``example_files`` into ``work`` (read-only, each at most ``MAX_FILE_BYTES``,
    together at most ``MAX_DATA_BYTES``); the paths copied."""
    copied, total = [], 0
    for relative in example_files(specs, root):
        source = root / relative
        size = source.stat().st_size
        if size > MAX_FILE_BYTES or total + size > MAX_DATA_BYTES:
            continue  # too big to ship with a server: the tool keeps its other examples
        target = work / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)  # a read-only copy from an earlier rendering
        shutil.copyfile(source, target)
        target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        copied.append(relative)
        total += size
    return copied


def _relative(value: JSON) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.removeprefix(WORK_SCHEME)
    path = Path(text)
    if path.is_absolute() or ".." in path.parts or "\0" in text:
        return None
    return path.as_posix()


def _inside(path: Path, root: Path) -> bool:
    """A regular file, no link on the way, inside ``root``."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        resolved = path.resolve()
    except (OSError, ValueError):
        return False
    return root in resolved.parents
