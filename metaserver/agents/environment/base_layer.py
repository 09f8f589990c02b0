"""The packages every environment holds, installed once per interpreter and linked into each.

Every environment gets FastMCP (what a generated server runs on) and the test runner its
tests replay with: about sixty distributions and 6,000 files, whose bytecode compile was
most of a pure-Python library's environment stage (13 s of 16 at load 4, against 3 s for the
same install without compiling). A base layer holds them once per interpreter, installed
and compiled in the sandbox like any install, then frozen and its files shared
(:mod:`metaserver.agents.environment.shared_files`). A new environment is seeded with hard
links to the layer's files before its own install, which then finds them installed and adds
only what the repository needs (a different version of one replaces that one).

Linking is safe only when installs run as the unprivileged sandbox uid: the layer's files are
ours and read-only, so an install's build scripts can unlink their names in the new
environment but never change the files themselves. Where installs would run as ourselves
(metaserver not root) there is no layer, and environments are installed by copy as before.

Layers live beside uv's package cache, in the user's cache directory (``Settings.layer_dir``),
so every METASERVER_HOME of the user shares them; a home on another disk gets copies. A layer
is rebuilt each week, so that environments still get the dependencies' fixes; older layers
go when a new one is made (environments keep their links, so nothing they hold goes).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import secrets
import shutil
import stat
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from metaserver.agents.environment.cache import freeze_environment
from metaserver.agents.environment.shared_files import share_identical_files
from metaserver.fs import remove_tree
from metaserver.sandbox import RunResult
from metaserver.sandbox.identity import Identity

__all__ = ["base_key", "ensure_base", "seed_from_base"]

logger = logging.getLogger(__name__)

_FORMAT = 2  # 2: its bytecode names /venv (bytecode.py)
_WEEK = 7 * 24 * 3600
_READY = "ready.json"

# Runs uv in the sandbox as an install in a work directory, writing only there and into an
# environment (named apart: a path the command line names is otherwise bound read-only).
RunUv = Callable[[list[str], Path, Path, float], Awaitable[RunResult]]
# Renames a new layer's compiled bytecode (its venv, a work directory): bytecode.py.
Rename = Callable[[Path, Path], Awaitable[object]]


def base_key(python: Path, python_version: str, packages: list[str], now: float) -> str:
    """The layer for an interpreter and package list, in the current week."""
    week = int(now // _WEEK)
    text = json.dumps([_FORMAT, str(python), python_version, sorted(packages), week])
    return hashlib.sha256(text.encode()).hexdigest()[:40]


async def ensure_base(
    root: Path,
    key: str,
    python: Path,
    packages: list[str],
    shared: Path,
    run_uv: RunUv,
    rename: Rename | None = None,
) -> Path | None:
    """The layer's environment for ``key``, built now if there is none yet.

    Returns:
        Its environment directory, or None when it cannot be built (the caller installs
        everything itself, and reports any error as it always did).
    """
    entry = root / key
    if (entry / _READY).is_file():
        return entry / "venv"
    temporary = root / f".{key}.{secrets.token_hex(4)}"
    venv = temporary / "venv"
    try:
        temporary.mkdir(parents=True)  # handed to the sandbox uid by each run
        args = ["venv", "--quiet", "--relocatable", "--python", str(python), str(venv)]
        made = await run_uv(args, temporary, venv, 120.0)
        if made.ok:
            args = ["pip", "install", "--quiet", "--compile-bytecode", "--link-mode=copy"]
            args += ["--python", str(venv / "bin/python"), *packages]
            made = await run_uv(args, temporary, venv, 300.0)
        if not made.ok:
            logger.info("no base layer for %s: %s", python, made.tail(12))
            return None
        if rename is not None:
            # Once here, so that every environment seeded from the layer links files that
            # already name /venv (their own rename then only reads them).
            await rename(venv, temporary)
        freeze_environment(temporary)
        share_identical_files(venv, shared)
        (temporary / _READY).write_text(json.dumps({"packages": packages, "made": time.time()}))
        try:
            os.rename(temporary, entry)
        except OSError:  # another conversion made the same layer first: use theirs
            return entry / "venv" if (entry / _READY).is_file() else None
        _sweep_others(root, keep=key)
        logger.info("base layer for Python %s made (%s)", python, ", ".join(packages))
        return entry / "venv"
    finally:
        remove_tree(temporary)


def seed_from_base(base: Path, venv: Path, identity: Identity) -> int:
    """Hard-link the layer's packages and scripts into ``venv`` (just created by uv).

    Directories are made for ``identity`` (the install writes beside the links); files that
    ``venv`` has already (its interpreter links, activation scripts, ``.pth`` files) and
    symlinks are left as they are.

    Returns:
        The files linked.
    """
    linked = 0
    for top in ("lib", "bin"):
        source_root = base / top
        for directory, dirnames, filenames in os.walk(source_root):
            relative = Path(directory).relative_to(base)
            target_dir = venv / relative
            if not target_dir.exists():
                target_dir.mkdir()
                if identity.switch:
                    os.chown(target_dir, identity.uid, identity.gid)
            dirnames[:] = [d for d in dirnames if not (Path(directory) / d).is_symlink()]
            for name in filenames:
                source, target = Path(directory) / name, target_dir / name
                if not stat.S_ISREG(source.lstat().st_mode) or os.path.lexists(target):
                    continue
                _link_or_copy(source, target)
                linked += 1
    return linked


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError as error:
        if error.errno == errno.EMLINK and _renew(source):
            # Every environment made from this layer holds a link to each of its files, and
            # a file system bounds an inode's links (ext4: 65,000): the layer's file is
            # replaced by a fresh copy of itself, so the next environments link that one.
            os.link(source, target)
        elif error.errno in (errno.EXDEV, errno.EMLINK):
            # The layers live on another disk than this home, or the file could not be
            # renewed: a copy, as ours.
            shutil.copy2(source, target)
        else:
            raise


def _renew(source: Path) -> bool:
    """Replace ``source`` by a copy of itself (a new inode, one link); False if it can't be."""
    fresh = source.with_name(f".{source.name}.{os.getpid()}.renew")
    try:
        shutil.copy2(source, fresh)
        os.replace(fresh, source)
    except OSError as error:
        logger.debug("could not renew %s: %s", source, error)
        with contextlib.suppress(OSError):
            fresh.unlink()
        return False
    return True


def _sweep_others(root: Path, keep: str) -> None:
    """Remove the layers made over a week ago (any interpreter's: its next is a new week's)."""
    stale = time.time() - _WEEK
    for entry in root.iterdir():
        if entry.name == keep or entry.name.startswith(".") or not entry.is_dir():
            continue
        try:
            made = float(json.loads((entry / _READY).read_text())["made"])
        except (OSError, ValueError, KeyError, TypeError):
            made = 0.0  # no readable stamp: not a layer this code made
        if made < stale:
            remove_tree(entry)
