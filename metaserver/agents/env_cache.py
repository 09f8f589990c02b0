"""Built environments kept for reuse, and the read-only treatment every environment gets.

Building an environment costs most in bytecode compilation (measured on this machine: pvlib
and FastMCP install in 2.5 s from a warm uv cache, 18 s with ``--compile-bytecode``), and
compiled bytecode saves about 3 s on every child start (importing pvlib and fastmcp: 2.3 s
compiled, 5.3 s not). So an environment is compiled once, and a finished one is kept under
``home/cache/environments/<key>``; a later build of the same tree with the same interpreter
is a hard-linked copy of it (0.4 s for those 15,000 files), made possible by uv's
``--relocatable`` environments.

Hard links share inodes with the uv cache and with every other copy, so no one may write
into a file in place: every *file* of a finished environment is made read-only (for the
bwrap backend the whole environment is also mounted read-only). Directories stay writable by
their owner, so removal, and the repair stage's later installs (which replace files, never
rewrite them), keep working. Note that the ``process`` backend running as root ignores
permission bits; only a confining backend really protects the shared files.
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

from metaserver.contracts import Environment

__all__ = ["EnvironmentCache", "freeze_files", "link_tree"]

logger = logging.getLogger(__name__)

_FORMAT = 1
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def freeze_files(root: Path) -> None:
    """Clear the write bits of every regular file under ``root`` (directories untouched)."""
    for directory, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(directory, name)
            try:
                mode = os.lstat(path).st_mode
                if stat.S_ISREG(mode) and mode & _WRITE_BITS:
                    os.chmod(path, stat.S_IMODE(mode) & ~_WRITE_BITS)
            except OSError as err:
                logger.debug("could not make %s read-only: %s", path, err)


def link_tree(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` with hard links (``cp -al``), or a real copy across devices.

    ``cp`` is a host tool acting on trusted directories; no repository code runs.
    """
    cp = shutil.which("cp")
    if cp is not None:
        done = subprocess.run(
            [cp, "-a", "--link", "--", str(source), str(dest)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode == 0:
            return
        logger.info("cp --link failed (%s); copying instead", done.stderr.strip()[:200])
        shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(source, dest, symlinks=True)


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
        return stored.model_copy(
            update={"venv": venv, "python_path": venv / "bin" / "python", "cached": True}
        )

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
            try:
                os.rename(temporary, entry)
            except OSError:
                logger.debug("stored environment %s appeared meanwhile", key)
        except (OSError, subprocess.SubprocessError) as err:
            logger.warning("could not keep environment %s: %s", key, err)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
