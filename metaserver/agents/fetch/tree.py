"""One source into a private tree: put a copy of the repository a :class:`Source` names into
``dest``.

Four kinds of source, each with its own module (:mod:`.git`, :mod:`.local`, :mod:`.archives`
for a local archive, :mod:`.index` for a package), one outcome: a :class:`Workspace` whose
``path`` holds the project root. This module dispatches on the kind, lets the workspace cache
answer for a tree fetched before (and stores a new one), has :mod:`.metadata` read the name and
version, and on any failure removes ``dest`` before the error propagates, so a later stage never
sees half a tree. git and archive work block, so they run in worker threads
(:func:`asyncio.to_thread`).
"""

from __future__ import annotations

import asyncio
import logging
import stat
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from metaserver import __version__
from metaserver.agents.fetch.archives import MAX_ARCHIVE_BYTES, unpack_archive
from metaserver.agents.fetch.common import in_thread, redact, timeout_error
from metaserver.agents.fetch.git import clone_git, resolve_remote
from metaserver.agents.fetch.index import (
    choose_sdist_or_wheel,
    download_file,
    list_files,
    normalise_name,
)
from metaserver.agents.fetch.local import copy_local, tree_fingerprint
from metaserver.agents.fetch.local_guard import CopyBudget
from metaserver.agents.fetch.metadata import inspect_tree
from metaserver.agents.fetch.workspace_cache import (
    CacheKey,
    WorkspaceCache,
    archive_key,
    git_key,
    pypi_key,
)
from metaserver.contracts import Source, Workspace
from metaserver.exceptions import FetchError, SourceError
from metaserver.fs import file_sha256, remove_tree

if TYPE_CHECKING:
    from metaserver.settings import Settings

__all__ = ["fetch"]

logger = logging.getLogger(__name__)


async def fetch(source: Source, dest: Path, settings: Settings) -> Workspace:
    """Fetch ``source`` into ``dest`` and describe what arrived.

    Args:
        source: A source that :func:`metaserver.agents.fetch.source.parse_source` accepted.
        dest: Where the repository tree goes. It must not exist; its parent is created.
        settings: Supplies the fetch timeout and the package index.

    Returns:
        The workspace: the tree at ``dest``, the git commit (git sources, and local
        directories that are git checkouts), the version (pypi, or declared statically), and
        the distribution name when the metadata declares one.

    Raises:
        SourceError: The ref or package does not exist, or the tree holds no Python code.
        FetchError: The source could not be fetched (network, git, archive, timeout).
        FileExistsError: ``dest`` already exists (a caller bug; it is left untouched).
    """
    dest = dest.absolute()
    if dest.exists() or dest.is_symlink():
        raise FileExistsError(f"fetch destination already exists: {dest}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    cache = WorkspaceCache(settings.workspace_store)
    try:
        workspace, key, cached = await _fetch_kind(source, dest, settings, cache)
        workspace = await in_thread(inspect_tree, workspace)
        if key is not None:
            workspace = workspace.model_copy(update={"fingerprint": f"{key.kind}:{key.digest}"})
            if not cached:
                await in_thread(cache.store, key, workspace)
        elif source.kind == "local":
            # Not stored (copying the directory again is as cheap as restoring it), but
            # identified, so that the store of built environments can answer.
            fingerprint = await in_thread(tree_fingerprint, dest)
            workspace = workspace.model_copy(update={"fingerprint": fingerprint})
    except BaseException:
        # Synchronous on purpose: this also runs on cancellation, when awaiting a thread
        # could itself be cancelled and leave half a tree behind.
        remove_tree(dest)
        raise
    logger.info(
        "fetched %s (%s) into %s in %.1f s: distribution=%s version=%s commit=%s",
        redact(source.original),
        source.kind,
        dest,
        time.monotonic() - started,
        workspace.distribution,
        workspace.version,
        workspace.commit,
    )
    return workspace


async def _fetch_kind(
    source: Source, dest: Path, settings: Settings, cache: WorkspaceCache
) -> tuple[Workspace, CacheKey | None, bool]:
    """Dispatch on the kind of source; each branch leaves the tree at ``dest``.

    Returns:
        The workspace, the cache key of its tree (None for a local directory), and whether
        the tree came from the cache (then nothing was downloaded).
    """
    if source.kind == "git":
        return await _fetch_git(source, dest, settings, cache)
    if source.kind == "local":
        budget = CopyBudget(
            settings.local_copy_max_mb * 2**20,
            settings.local_copy_max_files,
            settings.local_copy_seconds,
        )
        commit = await in_thread(copy_local, Path(source.location), dest, budget)
        return Workspace(source=source, path=dest, commit=commit), None, False
    if source.kind == "archive":
        key, cached = await in_thread(_fetch_archive, Path(source.location), dest, cache)
        return Workspace(source=source, path=dest), key, cached
    version, key, cached = await _fetch_pypi(source, dest, settings, cache)
    return Workspace(source=source, path=dest, version=version), key, cached


async def _fetch_git(
    source: Source, dest: Path, settings: Settings, cache: WorkspaceCache
) -> tuple[Workspace, CacheKey | None, bool]:
    """A cached tree when the ref resolves to a commit seen before, else a clone."""
    url = source.location
    alias = f"{url} {source.ref or 'HEAD'}"
    commit = await in_thread(resolve_remote, source, settings.timeouts.fetch)
    if commit is None:
        # Offline, or a server that is down: the commit this ref had the last time.
        commit = cache.recall("git", alias)
    if commit is not None:
        meta = await in_thread(cache.restore, git_key(url, commit), dest)
        if meta is not None:
            return Workspace(source=source, path=dest, commit=commit), git_key(url, commit), True
    commit = await in_thread(clone_git, source, dest, settings.timeouts.fetch)
    if commit is None:
        return Workspace(source=source, path=dest), None, False
    cache.remember("git", alias, commit)
    return Workspace(source=source, path=dest, commit=commit), git_key(url, commit), False


def _fetch_archive(path: Path, dest: Path, cache: WorkspaceCache) -> tuple[CacheKey, bool]:
    """Unpack a local source archive (the same checks as a downloaded sdist)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO named .tar.gz would block its reader
            raise SourceError(f"{path.name} is not a regular file")
        size = info.st_size
        if size > MAX_ARCHIVE_BYTES:
            raise SourceError(f"{path.name} is larger than {MAX_ARCHIVE_BYTES // 2**20} MiB")
        key = archive_key(file_sha256(path))
    except OSError as err:
        raise FetchError(f"could not read {path}: {err}") from None
    if cache.restore(key, dest) is not None:
        return key, True
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        try:
            unpack_archive(path, path.name, Path(tmp) / "tree", dest)
        except FetchError as err:
            # The user's own file, damaged or no archive at all: a bad SOURCE (exit 2),
            # where a downloaded one that fails so is the index's or the network's.
            raise SourceError(str(err)) from None
    return key, False


async def _fetch_pypi(
    source: Source, dest: Path, settings: Settings, cache: WorkspaceCache
) -> tuple[str, CacheKey, bool]:
    """The sdist's tree, from the cache or the index; return its version and cache key.

    A pinned version that is cached needs no network at all; an unpinned one costs one index
    request to learn the newest version (offline: the version fetched last time).
    """
    name = source.location
    pinned = source.version
    known = pinned
    if settings.index.offline and pinned is None:
        known = cache.recall("pypi", normalise_name(name))
    if known is not None and await _restored(cache, pypi_key(name, known), dest):
        return known, pypi_key(name, known), True
    if settings.index.offline:
        wanted = f"{name}=={pinned}" if pinned else name
        raise FetchError(
            f"offline mode: {wanted} is not in the workspace cache, and the package index "
            "may not be used (METASERVER_INDEX__OFFLINE is set); convert it once online"
        )
    timeout = settings.timeouts.fetch
    headers = {"User-Agent": f"metaserver/{__version__}"}
    try:
        async with (
            asyncio.timeout(timeout),
            httpx.AsyncClient(
                follow_redirects=True, timeout=httpx.Timeout(timeout), headers=headers
            ) as client,
        ):
            files = await list_files(client, settings.index.url, name)
            chosen, version = choose_sdist_or_wheel(name, pinned, files)
            key = pypi_key(name, version)
            if pinned is None:
                cache.remember("pypi", normalise_name(name), version)
            if version != pinned and await _restored(cache, key, dest):
                return version, key, True
            logger.info("downloading %s %s: %s", name, version, chosen.filename)
            with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
                archive = Path(tmp) / "sdist"
                await download_file(client, chosen, archive)
                await in_thread(unpack_archive, archive, chosen.filename, Path(tmp) / "tree", dest)
    except TimeoutError:
        raise timeout_error(f"downloading {name}", timeout) from None
    except httpx.HTTPError as err:
        detail = redact(str(err)) or type(err).__name__
        raise FetchError(f"could not download {name} from the package index: {detail}") from None
    return version, key, False


async def _restored(cache: WorkspaceCache, key: CacheKey, dest: Path) -> bool:
    return await in_thread(cache.restore, key, dest) is not None
