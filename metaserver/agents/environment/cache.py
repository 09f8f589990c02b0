"""Built environments kept for reuse, and the read-only treatment every environment gets.

Building an environment costs most in bytecode compilation (measured on this machine: pvlib
and FastMCP install in 2.5 s from a warm uv cache, 18 s with ``--compile-bytecode``), and
compiled bytecode saves about 3 s on every child start (importing pvlib and fastmcp: 2.3 s
compiled, 5.3 s not). So an environment is compiled once, and a finished one is kept under
``home/cache/environments/<key>``; a later build of the same tree with the same interpreter
is a hard-linked copy of it (0.4 s for those 15,000 files), made possible by uv's
``--relocatable`` environments.

Hard links share inodes with every other copy, so nothing sandboxed may write into a file in
place, nor rearrange a directory others rely on. A finished environment is therefore frozen
(:func:`freeze_environment`): every file is made read-only and, when metaserver runs as root,
every entry is taken back from the sandbox uid that installed it, which can then neither
re-enable a write bit nor rename anything (for the bwrap backend the environment is also
mounted read-only when served). An install into an existing environment (the repair stage's
``add_dependency``) first gets a private, unlinked copy (:func:`unshare_environment`), and is
frozen again afterwards.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import shutil
import stat
import subprocess
from pathlib import Path

from metaserver.agents.store_budget import mark_used, measure
from metaserver.contracts import Environment
from metaserver.fs import copy_tree, remove_tree
from metaserver.sandbox.identity import Identity, give_tree

__all__ = [
    "EnvironmentCache",
    "freeze_environment",
    "link_tree",
    "unshare_environment",
]

logger = logging.getLogger(__name__)

# 2: entries are owned by metaserver, not by the sandbox uid (stores of format 1 are not reused).
_FORMAT = 2
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def freeze_environment(root: Path) -> None:
    """Make ``root`` unchangeable by sandboxed code: its files read-only, and, when we are
    root, every entry ours. Symlinks are never followed (a child may have planted them)."""
    uid, gid = os.geteuid(), os.getegid()
    take = uid == 0
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            _freeze_entry(os.path.join(directory, name), uid, gid, take)
    _freeze_entry(str(root), uid, gid, take)


def _freeze_entry(path: str, uid: int, gid: int, take: bool) -> None:
    try:
        info = os.lstat(path)
        if take and (info.st_uid, info.st_gid) != (uid, gid):
            os.chown(path, uid, gid, follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) and info.st_mode & _WRITE_BITS:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~_WRITE_BITS)
    except OSError as err:
        logger.debug("could not freeze %s: %s", path, err)


def unshare_environment(venv: Path, identity: Identity) -> None:
    """Replace ``venv`` by a copy that shares no inode, owned by ``identity`` when it differs
    from ours, so that an install into it cannot reach the store or other environments.

    The copy is made beside ``venv`` and swapped in; only trusted host tools act on it.
    """
    fresh = venv.with_name(f".{venv.name}.{secrets.token_hex(4)}.copy")
    old = venv.with_name(f".{venv.name}.{secrets.token_hex(4)}.old")
    try:
        copy_tree(venv, fresh, link=False)
        give_tree(fresh, identity)
        os.rename(venv, old)
        os.rename(fresh, venv)
    finally:
        for leftover in (fresh, old):
            remove_tree(leftover)


def link_tree(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` with hard links (``cp -al``), or a real copy across devices."""
    copy_tree(source, dest, link=True)


class EnvironmentCache:
    """Finished environments under ``root``, keyed by what determines their content."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key(fingerprint: str, python: Path, python_version: str, extra: str) -> str:
        """The key of an environment: tree, interpreter, and the server's own requirement.

        The package index is deliberately not part of it: a mirror serves the same
        distributions, and an offline build must find what an online one stored.
        """
        text = json.dumps([_FORMAT, fingerprint, str(python), python_version, extra])
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def restore(self, key: str, venv: Path) -> Environment | None:
        """Link the stored environment for ``key`` to ``venv``; None on a miss."""
        entry = self.root / key
        meta_path = entry / "environment.json"
        if not meta_path.is_file() or not (entry / "venv").is_dir():
            return None
        try:
            stored = Environment.model_validate_json(meta_path.read_text())
            link_tree(entry / "venv", venv)
        except (OSError, ValueError, subprocess.SubprocessError) as err:
            logger.warning("stored environment %s is unusable (%s); building anew", key, err)
            shutil.rmtree(venv, ignore_errors=True)
            return None
        mark_used(entry)
        return stored.model_copy(
            update={"venv": venv, "python_path": venv / "bin" / "python", "cached": True}
        )

    def entries(self) -> list[Path]:
        """Every complete entry (for the store budget)."""
        if not self.root.is_dir():
            return []
        return [p for p in self.root.iterdir() if (p / "environment.json").is_file()]

    def store(self, key: str, environment: Environment) -> None:
        """Keep a linked copy of a finished (read-only) environment; failures only warn."""
        entry = self.root / key
        if (entry / "environment.json").is_file():
            return
        temporary = self.root / f".{key}.{secrets.token_hex(4)}"
        try:
            temporary.mkdir(parents=True)
            link_tree(environment.venv, temporary / "venv")
            (temporary / "environment.json").write_text(environment.model_dump_json(indent=1))
            measure(temporary)
            try:
                os.rename(temporary, entry)
            except OSError:
                logger.debug("stored environment %s appeared meanwhile", key)
        except (OSError, subprocess.SubprocessError) as err:
            logger.warning("could not keep environment %s: %s", key, err)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
