"""File-system helpers every stage uses: remove, copy and measure directory trees.

They act on trusted directories of metaserver's own home (workspaces, environments, stores);
no repository code runs here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def remove_tree(path: Path) -> None:
    """Remove ``path`` whatever it is, read-only entries included; silent if absent."""

    def make_writable_and_retry(func: Callable[..., Any], target: str, _exc: object) -> None:
        # Environments hold read-only files, and unpacked archives may hold read-only
        # directories, which rmtree cannot empty.
        # Only directories are made writable: a file's mode is its inode's, which a
        # hard-linked environment shares with the store and with other servers, and
        # unlinking a file needs nothing of it.
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), stat.S_IRWXU)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, stat.S_IRWXU)
            func(target)

    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=make_writable_and_retry)
        else:
            shutil.rmtree(path, onerror=make_writable_and_retry)


def copy_tree(source: Path, dest: Path, *, link: bool) -> None:
    """Copy ``source`` to ``dest`` with ``cp -a`` (hard links with ``link``), else Python's.

    ``cp`` is a host tool acting on trusted directories; no repository code runs.
    """
    cp = shutil.which("cp")
    if cp is not None:
        done = subprocess.run(
            [cp, "-a", *(["--link"] if link else []), "--", str(source), str(dest)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode == 0:
            return
        logger.info("cp failed (%s); copying in Python instead", done.stderr.strip()[:200])
        remove_tree(dest)
    shutil.copytree(source, dest, symlinks=True)


def tree_bytes(root: Path) -> int:
    """Disk bytes under ``root``, each inode counted once; symlinks are not followed."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            inode = (info.st_dev, info.st_ino)
            if inode not in seen:
                seen.add(inode)
                total += info.st_blocks * 512
    return total


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
