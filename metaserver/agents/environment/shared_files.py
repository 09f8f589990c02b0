"""Identical package files shared between environments, through a content-addressed store.

Environments are installed by copy (``--link-mode=copy``: the package cache belongs to the
sandbox user, see docs/ARCHITECTURE.md, "Sandbox facts"), so ten environments that hold numpy,
scipy and pandas hold ten copies. Once an environment is frozen (read-only, owned by
metaserver), each of its larger files is hashed and replaced by a hard link to the one copy
in ``objects/`` (``objects/ab/abcd...``), itself created by the first environment that had
those bytes. A file is shared only with a file of the same content and mode, so nothing an
environment sees changes; sandboxed code still cannot write any of them (the files are
read-only and not the sandbox user's, and environments are mounted read-only), and an install
into an environment first takes a private copy that shares no inode
(:func:`metaserver.agents.environment.cache.unshare_environment`).

An object that no environment links any more (link count 1) is garbage, swept by
:func:`sweep_objects`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

from metaserver.fs import file_sha256

logger = logging.getLogger(__name__)

# Small files save little and cost a hash and an inode lookup each.
MIN_BYTES = 16 * 1024


def share_identical_files(root: Path, objects: Path) -> int:
    """Link every large regular file under ``root`` to its copy in ``objects``.

    Returns:
        The bytes no longer stored twice (files now linked to an existing object).
    """
    saved = 0
    for directory, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = Path(directory) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_size < MIN_BYTES or info.st_nlink > 1:
                continue  # a link, small, or already shared (a restored environment)
            try:
                saved += _share(path, info, objects)
            except OSError as err:  # another disk, a race: the file simply stays a copy
                logger.debug("not sharing %s: %s", path, err)
    return saved


def _share(path: Path, info: os.stat_result, objects: Path) -> int:
    digest = file_sha256(path)
    mode = stat.S_IMODE(info.st_mode)
    # The mode is part of the key: an executable and a data file may hold the same bytes.
    target = objects / digest[:2] / f"{digest}-{mode:o}"
    try:
        existing = target.lstat()
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # another conversion stored it first
            os.link(path, target)
        return 0
    if (
        not stat.S_ISREG(existing.st_mode)
        or existing.st_size != info.st_size
        or (existing.st_uid, existing.st_gid) != (info.st_uid, info.st_gid)
    ):
        return 0
    swap = path.with_name(f".{path.name}.shared")
    os.link(target, swap)
    os.replace(swap, path)
    return info.st_size


def sweep_objects(objects: Path) -> int:
    """Delete the objects no environment links any more; the bytes freed."""
    freed = 0
    if not objects.is_dir():
        return 0
    for entry in objects.glob("*/*"):
        with contextlib.suppress(OSError):
            info = entry.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                entry.unlink()
                freed += info.st_blocks * 512
    return freed
