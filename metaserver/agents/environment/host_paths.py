"""No path of the host inside an environment: what a served tool can read names none.

A served server sees its environment at ``/venv`` (``children/launch.py``), but two things
uv writes into an environment name the host's paths, and a tool reads them with ordinary
calls (``sys.path``, ``importlib.metadata``):

* the ``.pth`` file that puts a non-installable repository on the import path named the
  workspace's host path, which then stood on ``sys.path``. The tree is copied into the
  environment instead (``source/``) and named relative to ``site-packages``, which
  ``site`` resolves against wherever the environment is seen: ``/venv/source`` inside, its
  own path on the host. The environment no longer needs the workspace at all;
* ``direct_url.json`` of a distribution installed from a local tree records
  ``file://`` and the workspace's host path. Such a record is dropped (with its line in
  ``RECORD``): the distribution then reads as installed by version, which is what it is
  for every use here.

Compiled bytecode still records the path it was compiled at; the import system replaces it
with the real source path when it loads a module (``__file__``, tracebacks), so it shows
only to code that unmarshals ``.pyc`` files itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from metaserver.contracts import PTH_NAME

__all__ = ["SOURCE_DIR", "drop_local_origins", "put_on_path"]

# The copy of a non-installable tree inside its environment (beside bin/ and lib/).
SOURCE_DIR = "source"
# Not copied: version control and caches are no part of what is imported.
_SKIPPED = shutil.ignore_patterns(".git", ".hg", ".svn", "__pycache__", ".tox", ".nox")


def put_on_path(venv: Path, directory: Path) -> None:
    """Put ``directory`` (a tree that is not an installable package) on ``venv``'s import
    path: a copy in ``venv/source``, named by a ``.pth`` line relative to site-packages."""
    source = venv / SOURCE_DIR
    if not source.is_dir():
        scratch = venv / f".{SOURCE_DIR}.partial"
        shutil.rmtree(scratch, ignore_errors=True)
        # Symlinks stay links: a repository's link is never followed out of its tree here.
        shutil.copytree(directory, scratch, symlinks=True, ignore=_SKIPPED)
        os.replace(scratch, source)
    for site in (venv / "lib").glob("python*/site-packages"):
        pth = site / PTH_NAME
        line = os.path.relpath(source, site)
        # Unlink first: a stored environment's file is a hard link shared with the store.
        pth.unlink(missing_ok=True)
        pth.write_text(f"{line}\n")
        pth.chmod(0o444)


def drop_local_origins(venv: Path) -> int:
    """Delete every ``direct_url.json`` in ``venv`` that names a local path (``file:``).

    Returns:
        How many were dropped.
    """
    dropped = 0
    for record in venv.glob("lib/python*/site-packages/*.dist-info/direct_url.json"):
        try:
            url = json.loads(record.read_text()).get("url", "")
        except (OSError, ValueError, AttributeError):
            continue
        if not isinstance(url, str) or not url.startswith("file:"):
            continue
        record.unlink()
        _forget(record.parent / "RECORD", f"{record.parent.name}/{record.name}")
        dropped += 1
    return dropped


def _forget(manifest: Path, entry: str) -> None:
    """Remove ``entry``'s line from a ``RECORD`` (a file that is gone must not be listed)."""
    with contextlib.suppress(OSError):
        lines = manifest.read_text().splitlines(keepends=True)
        kept = [line for line in lines if line.split(",", 1)[0] != entry]
        if len(kept) != len(lines):
            mode = manifest.stat().st_mode
            manifest.unlink()  # a hard link shared with the store: replaced, not changed
            manifest.write_text("".join(kept))
            manifest.chmod(mode)
