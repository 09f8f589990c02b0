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

Compiled bytecode is shared too. Environments are compiled with hash-based ``.pyc`` files
(:func:`metaserver.agents.environment.build.uv_environment` sets ``SOURCE_DATE_EPOCH``, which
makes ``py_compile`` record the source's hash instead of its install time), and such a file is
keyed by what makes it valid, not by its bytes: the interpreter's magic number, its flags, the
source's hash and its optimisation level. Two of them differ only in the path they were
compiled at, which the import system replaces with the real source path when it loads one.
Measured on ten scientific conversions in one home: files under 16 KiB (most of a package)
and the bytecode of every package were each environment's own, about 40% of its bytes.

An object that no environment links any more (link count 1) is garbage, swept by
:func:`sweep_objects`. Processes that share a home share the store: adding holds the store's
lock shared and a sweep holds it exclusively (:func:`metaserver.registry.locks.store_lock`),
since an object about to be linked again still has a link count of 1, and a sweep that
deleted it then would leave that file unshared and the store without the object.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
from pathlib import Path

from metaserver.fs import file_sha256
from metaserver.registry.locks import store_lock

logger = logging.getLogger(__name__)

# An empty file saves nothing; every other one is a hash and an inode lookup (12,000 files
# under 16 KiB in a scientific environment: most of its files, a fifth of its bytes).
MIN_BYTES = 1
_PYC_HEADER = 16
_HASH_BASED = 0b1


def share_identical_files(root: Path, objects: Path) -> int:
    """Link every large regular file under ``root`` to its copy in ``objects``.

    Returns:
        The bytes no longer stored twice (files now linked to an existing object).
    """
    with store_lock(objects, exclusive=False):
        return _share_all(root, objects)


def _share_all(root: Path, objects: Path) -> int:
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


def pyc_key(path: Path) -> str | None:
    """The identity of a hash-based ``.pyc`` (see the module's text); None for any other file."""
    if path.suffix != ".pyc" or path.parent.name != "__pycache__":
        return None
    with path.open("rb") as stream:
        header = stream.read(_PYC_HEADER)
    if len(header) < _PYC_HEADER or not int.from_bytes(header[4:8], "little") & _HASH_BASED:
        return None  # timestamp-based: valid only beside a source of that install time
    level = path.name.split(".", 1)[1]  # "cpython-311.pyc" or "cpython-311.opt-1.pyc"
    return hashlib.sha256(b"pyc\0" + level.encode() + b"\0" + header).hexdigest()


def _share(path: Path, info: os.stat_result, objects: Path) -> int:
    bytecode = pyc_key(path)
    digest = bytecode or file_sha256(path)
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
        # Equal bytes have equal sizes; bytecode embeds its compile path, whose length varies.
        or (bytecode is None and existing.st_size != info.st_size)
        or (existing.st_uid, existing.st_gid) != (info.st_uid, info.st_gid)
    ):
        return 0
    swap = path.with_name(f".{path.name}.shared")
    os.link(target, swap)
    os.replace(swap, path)
    return info.st_size


def sweep_objects(objects: Path) -> int:
    """Delete the objects no environment links any more; the bytes freed."""
    if not objects.is_dir():
        return 0
    with store_lock(objects, exclusive=True) as held:
        if not held:
            logger.debug("not sweeping %s: files are being shared into it", objects)
            return 0
        freed = 0
        for entry in objects.glob("*/*"):
            with contextlib.suppress(OSError):
                info = entry.lstat()
                if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                    entry.unlink()
                    freed += info.st_blocks * 512
        return freed
