"""A cache of fetched repository trees, so that converting a source twice fetches it once.

An entry is keyed by what makes a tree immutable:

* ``pypi``: the normalised distribution name and the exact version;
* ``git``: the URL and the resolved commit (a branch or tag is resolved with one
  ``git ls-remote``; the last resolution of each ref is remembered for offline use);
* ``archive``: the SHA-256 of the archive file.

Local directories are not cached: copying them is already a local operation, and they change
without notice. An entry is ``home/cache/workspaces/<kind>/<digest>/`` holding ``tree/`` (the
tree as fetched and cleaned) and ``meta.json``. Entries are written under a temporary name and
renamed into place, so two conversions of the same source at once never see half an entry;
the slower one simply discards its copy.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metaserver.agents.store_budget import mark_used, measure
from metaserver.contracts import Workspace

__all__ = ["CacheKey", "WorkspaceCache", "archive_key", "git_key", "pypi_key"]

logger = logging.getLogger(__name__)

_FORMAT = 1  # bump when the layout of an entry changes; old entries are then ignored


@dataclass(frozen=True)
class CacheKey:
    """Identifies one immutable tree."""

    kind: str
    parts: tuple[str, ...]

    @property
    def digest(self) -> str:
        text = json.dumps([_FORMAT, self.kind, *self.parts])
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def describe(self) -> str:
        return f"{self.kind}:{'@'.join(self.parts)}"


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pypi_key(name: str, version: str) -> CacheKey:
    return CacheKey("pypi", (_normalise(name), version.strip().lower()))


def git_key(url: str, commit: str) -> CacheKey:
    return CacheKey("git", (url, commit.lower()))


def archive_key(sha256: str) -> CacheKey:
    return CacheKey("archive", (sha256.lower(),))


class WorkspaceCache:
    """Fetched trees under ``root``; every method is synchronous (run it in a thread)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def entry(self, key: CacheKey) -> Path:
        return self.root / key.kind / key.digest

    def lookup(self, key: CacheKey) -> Path | None:
        """The cached tree for ``key``, or None."""
        entry = self.entry(key)
        if (entry / "meta.json").is_file() and (entry / "tree").is_dir():
            return entry
        return None

    def restore(self, key: CacheKey, dest: Path) -> dict[str, Any] | None:
        """Copy the cached tree for ``key`` to ``dest`` (which must not exist).

        Returns:
            The entry's metadata (``commit``, ``version``, ``distribution``), or None on a
            miss or an unusable entry (then nothing is left at ``dest``).
        """
        entry = self.lookup(key)
        if entry is None:
            return None
        try:
            meta = json.loads((entry / "meta.json").read_text())
            # A copy, never a link: sandboxed code reads (and may try to write) the workspace,
            # and must not reach the cache through it.
            shutil.copytree(entry / "tree", dest, symlinks=True)
        except (OSError, ValueError) as err:
            logger.warning("workspace cache entry %s is unusable (%s); fetching again", entry, err)
            shutil.rmtree(dest, ignore_errors=True)
            return None
        mark_used(entry)
        logger.info("workspace cache hit for %s", key.kind)
        return meta if isinstance(meta, dict) else {}

    def store(self, key: CacheKey, workspace: Workspace) -> None:
        """Keep a copy of ``workspace.path`` under ``key``; failures only log a warning."""
        entry = self.entry(key)
        if self.lookup(key) is not None:
            return
        temporary = entry.with_name(f".{entry.name}.{secrets.token_hex(4)}")
        try:
            temporary.mkdir(parents=True)
            shutil.copytree(workspace.path, temporary / "tree", symlinks=True)
            meta = {
                "key": [key.kind, *key.parts],
                "commit": workspace.commit,
                "version": workspace.version,
                "distribution": workspace.distribution,
            }
            (temporary / "meta.json").write_text(json.dumps(meta, indent=1))
            measure(temporary)
            try:
                os.rename(temporary, entry)
            except OSError:
                # Another conversion stored the same tree first; theirs is as good as ours.
                logger.debug("workspace cache entry %s appeared meanwhile", entry)
        except OSError as err:
            logger.warning("could not cache %s: %s", key.describe(), err)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)

    def entries(self) -> list[Path]:
        """Every complete entry (for the store budget); the aliases are not entries."""
        return [
            entry
            for kind in (self.root.iterdir() if self.root.is_dir() else [])
            if kind.is_dir() and kind.name != "aliases"
            for entry in kind.iterdir()
            if (entry / "meta.json").is_file()
        ]

    # Remembered resolutions of names that move (a pypi "newest", a git branch), so that an
    # offline conversion can still find the tree it converted last time.

    def remember(self, kind: str, name: str, resolved: str) -> None:
        path = self._alias(kind, name)
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(resolved)
            os.replace(temporary, path)
        except OSError as err:
            logger.warning("could not remember %s %s: %s", kind, name, err)
            temporary.unlink(missing_ok=True)

    def recall(self, kind: str, name: str) -> str | None:
        try:
            return self._alias(kind, name).read_text().strip() or None
        except OSError:
            return None

    def _alias(self, kind: str, name: str) -> Path:
        digest = hashlib.sha256(json.dumps([_FORMAT, kind, name]).encode()).hexdigest()[:40]
        return self.root / "aliases" / kind / digest
