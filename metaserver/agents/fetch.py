"""The fetch stage: put a private copy of the repository a :class:`Source` names into ``dest``.

Three kinds of source, one outcome (a :class:`Workspace` whose ``path`` holds the project root):

* git: a shallow clone (``--depth 1``), with remote helpers and submodules off and no prompts;
* local: a copy of the directory that skips VCS data, virtual environments and build output;
* pypi: the source distribution from the configured index (PEP 691 JSON, or PEP 503 HTML),
  checked against the index's hash and unpacked with path-traversal checks.

Whatever the kind, the stage then reads the project's name and version from its metadata files
without running any of its code, and refuses a tree that holds no Python. On any failure
``dest`` is removed before the error propagates, so a later stage never sees half a tree.

git and archive work block, so they run in worker threads (:func:`asyncio.to_thread`).
"""

from __future__ import annotations

import asyncio
import configparser
import contextlib
import email.parser
import hashlib
import logging
import os
import re
import shutil
import stat
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar
from urllib.parse import urldefrag, urljoin

import httpx

from metaserver import __version__
from metaserver.agents.source import PYPI_NAME_RE
from metaserver.agents.workspace_cache import (
    CacheKey,
    WorkspaceCache,
    archive_key,
    file_sha256,
    git_key,
    pypi_key,
)
from metaserver.contracts import Source, Workspace
from metaserver.exceptions import FetchError, SourceError

if TYPE_CHECKING:
    from metaserver.settings import Settings

__all__ = ["fetch"]

logger = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


async def fetch(source: Source, dest: Path, settings: Settings) -> Workspace:
    """Fetch ``source`` into ``dest`` and describe what arrived.

    Args:
        source: A source that :func:`metaserver.agents.source.parse_source` accepted.
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
    cache = WorkspaceCache(settings.home / "cache" / "workspaces")
    try:
        workspace, key, cached = await _fetch_kind(source, dest, settings, cache)
        workspace = await _in_thread(_inspect_tree, workspace)
        if key is not None:
            workspace = workspace.model_copy(update={"fingerprint": f"{key.kind}:{key.digest}"})
            if not cached:
                await _in_thread(cache.store, key, workspace)
    except BaseException:
        # Synchronous on purpose: this also runs on cancellation, when awaiting a thread
        # could itself be cancelled and leave half a tree behind.
        _remove_tree(dest)
        raise
    logger.info(
        "fetched %s (%s) into %s in %.1f s: distribution=%s version=%s commit=%s",
        _redact(source.original),
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
        commit = await _in_thread(_copy_local, Path(source.location), dest)
        return Workspace(source=source, path=dest, commit=commit), None, False
    if source.kind == "archive":
        key, cached = await _in_thread(_fetch_archive, Path(source.location), dest, cache)
        return Workspace(source=source, path=dest), key, cached
    version, key, cached = await _fetch_pypi(source, dest, settings, cache)
    return Workspace(source=source, path=dest, version=version), key, cached


async def _fetch_git(
    source: Source, dest: Path, settings: Settings, cache: WorkspaceCache
) -> tuple[Workspace, CacheKey | None, bool]:
    """A cached tree when the ref resolves to a commit seen before, else a clone."""
    url = source.location
    alias = f"{url} {source.ref or 'HEAD'}"
    commit = await _in_thread(_resolve_remote, source, settings.timeouts.fetch)
    if commit is None:
        # Offline, or a server that is down: the commit this ref had the last time.
        commit = cache.recall("git", alias)
    if commit is not None:
        meta = await _in_thread(cache.restore, git_key(url, commit), dest)
        if meta is not None:
            return Workspace(source=source, path=dest, commit=commit), git_key(url, commit), True
    commit = await _in_thread(_clone_git, source, dest, settings.timeouts.fetch)
    if commit is None:
        return Workspace(source=source, path=dest), None, False
    cache.remember("git", alias, commit)
    return Workspace(source=source, path=dest, commit=commit), git_key(url, commit), False


def _fetch_archive(path: Path, dest: Path, cache: WorkspaceCache) -> tuple[CacheKey, bool]:
    """Unpack a local source archive (the same checks as a downloaded sdist)."""
    try:
        size = path.stat().st_size
        if size > _MAX_ARCHIVE_BYTES:
            raise FetchError(f"{path.name} is larger than {_MAX_ARCHIVE_BYTES // 2**20} MiB")
        key = archive_key(file_sha256(path))
    except OSError as err:
        raise FetchError(f"could not read {path}: {err}") from None
    if cache.restore(key, dest) is not None:
        return key, True
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        _unpack(path, path.name, Path(tmp) / "tree", dest)
    return key, False


async def _in_thread(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking ``func`` in a worker thread, and never return while it still runs."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args, **kwargs))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        # A thread cannot be interrupted. Waiting for it keeps the caller's cleanup from racing
        # a clone or an extraction that is still writing into dest; git's kill timeout and the
        # archive size caps bound the wait.
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it as never retrieved
        raise


def _timeout_error(what: str, seconds: float) -> FetchError:
    error = FetchError(f"{what} timed out after {seconds:g} s")
    error.failure_type = "timeout"
    return error


def _remove_tree(path: Path) -> None:
    """Remove ``path`` whatever it is, including read-only entries; silent if absent."""

    def make_writable_and_retry(func: Callable[..., Any], target: str, _exc: object) -> None:
        # An unpacked archive may hold read-only directories; rmtree cannot empty those.
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(target), stat.S_IRWXU)
            if not os.path.islink(target):
                os.chmod(target, stat.S_IRWXU)
            func(target)

    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=make_writable_and_retry)
        else:
            shutil.rmtree(path, onerror=make_writable_and_retry)


_USERINFO_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")


def _redact(text: str) -> str:
    """Hide credentials in URLs (``https://TOKEN@host``, ``https://user:pass@host``)."""

    def hide(match: re.Match[str]) -> str:
        scheme, userinfo = match.group("scheme"), match.group("userinfo")
        if scheme.lower().startswith("http"):
            return f"{scheme}***@"  # a lone http "user" is often a token
        user = userinfo.split(":", 1)[0]
        return f"{scheme}{user}:***@" if ":" in userinfo else match.group(0)

    return _USERINFO_RE.sub(hide, text)


# --------------------------------------------------------------------------------------- git

# Passed before the subcommand, so they apply to every git we run. Remote helpers such as
# ``ext::`` run commands; submodules would fetch more than was asked for (and from elsewhere).
_GIT_CONFIG = (
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "submodule.recurse=false",
    "-c",
    "advice.detachedHead=false",
)
_GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # fail instead of waiting for a password nobody will type
    # Only these transports, for the clone and anything it might start; overrides the
    # user's protocol.*.allow configuration.
    "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
    "GIT_LFS_SKIP_SMUDGE": "1",  # LFS blobs are data, not code, and can be huge
}
_CLONE_FLAGS = ("--no-recurse-submodules", "--quiet")
_FULL_SHA_RE = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_SHORT_SHA_RE = re.compile(r"^[0-9a-f]{7,63}$")
_GIT_STDERR_RE = re.compile(r"^\s*stderr: '(.*)'\s*$", re.DOTALL)


class _GitFailure(Exception):
    """A git command failed; ``line`` is its decisive stderr line."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line

    @property
    def ref_missing(self) -> bool:
        return bool(
            re.search(r"Remote branch .* not found|couldn't find remote ref", self.line, re.I)
        )


@dataclass
class _Git:
    """Runs git commands against one deadline, through GitPython's command wrapper.

    ``Repo.clone_from`` is not used because GitPython runs clone as a detached process and
    waits on it without a timeout; ``Git.execute`` accepts ``kill_after_timeout``.
    """

    timeout: float
    deadline: float = field(init=False)

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.timeout

    def run(self, args: Sequence[str], cwd: Path | None = None) -> str:
        git = _import_git()
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _timeout_error("git", self.timeout)
        executable = git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git"
        command = [executable, *_GIT_CONFIG, *args]
        try:
            output = git.Git(str(cwd) if cwd else None).execute(
                command, kill_after_timeout=remaining, env=_GIT_ENV
            )
        except git.GitCommandNotFound:
            raise FetchError("git is not installed (or not on PATH)") from None
        except git.GitCommandError as err:
            if time.monotonic() >= self.deadline:
                raise _timeout_error("git", self.timeout) from None
            raise _GitFailure(_decisive_line(err.stderr)) from None
        return str(output)


def _import_git() -> ModuleType:
    """GitPython, imported late: it refuses to import at all where git is missing."""
    try:
        import git
    except ImportError as err:
        first_line = (str(err).splitlines() or [type(err).__name__])[0]
        raise FetchError(f"git is not available: {first_line}") from None
    return git


def _decisive_line(stderr: object) -> str:
    """The stderr line that says what went wrong (the first ``fatal:``), redacted."""
    text = str(stderr or "")
    match = _GIT_STDERR_RE.match(text)
    if match:
        text = match.group(1)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for prefix in ("fatal:", "error:"):
        for line in lines:
            if line.startswith(prefix):
                return _redact(line)
    return _redact(lines[-1]) if lines else "git failed without a message"


def _resolve_remote(source: Source, timeout: float) -> str | None:
    """The commit a git source's ref names now (one ``git ls-remote``), or None if unknown.

    A full commit id is its own answer. None means "clone to find out": an abbreviated
    commit, a ref the remote does not list, or a remote that cannot be reached.
    """
    ref = source.ref
    if ref is not None and _FULL_SHA_RE.match(ref):
        return ref
    if ref is not None and _SHORT_SHA_RE.match(ref):
        return None
    git = _import_git()
    try:
        git.Git.check_unsafe_protocols(source.location)
        listing = _Git(min(timeout, 30.0)).run(["ls-remote", "--", source.location, ref or "HEAD"])
    except (git.UnsafeProtocolError, _GitFailure, FetchError) as err:
        logger.info("could not resolve %s remotely: %s", _redact(source.location), err)
        return None
    refs: dict[str, str] = {}
    for line in listing.splitlines():
        sha, _, name = line.partition("\t")
        refs[name.strip()] = sha.strip()
    wanted = ref or "HEAD"
    # A tag's peeled commit first: the tag object itself is not what gets checked out.
    for name in (f"refs/tags/{wanted}^{{}}", f"refs/heads/{wanted}", f"refs/tags/{wanted}", wanted):
        if name in refs and _FULL_SHA_RE.match(refs[name]):
            return refs[name]
    return None


def _clone_git(source: Source, dest: Path, timeout: float) -> str | None:
    """Clone ``source`` into ``dest`` (git creates it) and return the checked-out commit."""
    git = _import_git()
    url = source.location
    # parse_source already refuses these; GitPython's own check is a second, independent one.
    try:
        git.Git.check_unsafe_protocols(url)
    except git.UnsafeProtocolError:
        raise SourceError(f"unsafe git URL (remote helper transport): {_redact(url)!r}") from None
    runner = _Git(timeout)
    ref = source.ref
    try:
        if ref is None:
            _clone(runner, url, dest, shallow=True)
        elif _FULL_SHA_RE.match(ref):
            _clone_commit(runner, url, dest, ref)
        else:
            _clone_named_ref(runner, url, dest, ref)
    except _GitFailure as failure:
        if ref is not None and failure.ref_missing:
            raise SourceError(f"no branch, tag or commit {ref!r} in {_redact(url)}") from None
        raise FetchError(f"git could not fetch {_redact(url)}: {failure.line}") from None
    return _head_commit(dest)


def _clone(
    runner: _Git,
    url: str,
    dest: Path,
    *,
    shallow: bool,
    checkout: bool = True,
    branch: str | None = None,
) -> None:
    flags = list(_CLONE_FLAGS)
    if shallow:
        flags.append("--depth=1")
    if not checkout:
        flags.append("--no-checkout")  # a specific commit is checked out afterwards
    if branch is not None:
        flags.append(f"--branch={branch}")  # joined, so the value can never be an option
    runner.run(["clone", *flags, "--", url, str(dest)])


def _clone_named_ref(runner: _Git, url: str, dest: Path, ref: str) -> None:
    """A branch or tag; an abbreviated commit when no branch or tag has that name."""
    try:
        _clone(runner, url, dest, shallow=True, branch=ref)
    except _GitFailure as failure:
        if not (failure.ref_missing and _SHORT_SHA_RE.match(ref)):
            raise
        # Servers only hand out full commit ids, so an abbreviation needs the whole history.
        logger.info("%s is no branch or tag; looking for it as a commit (full clone)", ref)
        _remove_tree(dest)
        _clone(runner, url, dest, shallow=False, checkout=False)
        _checkout_commit(runner, url, dest, ref)


def _clone_commit(runner: _Git, url: str, dest: Path, sha: str) -> None:
    """A full commit id: a shallow fetch of that commit, else a full clone."""
    _clone(runner, url, dest, shallow=True, checkout=False)
    try:
        runner.run(["fetch", "--quiet", "--depth=1", "origin", sha], cwd=dest)
    except _GitFailure as failure:
        # Servers may refuse to serve a commit by id (protocol v0 without
        # uploadpack.allowReachableSHA1InWant); a full clone has every reachable commit.
        logger.info("shallow fetch of %s refused (%s); cloning in full", sha, failure.line)
        _remove_tree(dest)
        _clone(runner, url, dest, shallow=False, checkout=False)
    _checkout_commit(runner, url, dest, sha)


def _checkout_commit(runner: _Git, url: str, dest: Path, ref: str) -> None:
    try:
        full = runner.run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=dest)
    except _GitFailure:
        raise SourceError(f"no branch, tag or commit {ref!r} in {_redact(url)}") from None
    runner.run(["checkout", "--quiet", "--detach", full.strip()], cwd=dest)


def _head_commit(path: Path) -> str | None:
    """HEAD's commit id, read by GitPython from the ref files alone.

    ``Repo.head.commit`` would start ``git cat-file`` inside the repository; resolving the
    ref runs no git at all, so a local checkout's configuration is never acted on.
    """
    try:
        import git

        sha = git.SymbolicReference.dereference_recursive(git.Repo(path), "HEAD")
        return str(sha)
    except Exception as err:  # not a repository, unborn HEAD, git missing: all mean "unknown"
        logger.debug("no HEAD commit for %s: %s", path, err)
        return None


# ------------------------------------------------------------------------------------- local

# Never part of the project: VCS data, environments, caches. Skipped at any depth.
_SKIP_ANYWHERE = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
# Build output and the usual venv name, skipped at the top only: a package may well have a
# subpackage called ``build`` or ``dist``.
_SKIP_AT_TOP = frozenset({"venv", "build", "dist"})


def _copy_local(original: Path, dest: Path) -> str | None:
    """Copy the directory into ``dest``; return its HEAD commit if it is a git checkout."""
    root = original.resolve()
    if not root.is_dir():
        raise SourceError(f"not a directory: {root}")
    try:
        shutil.copytree(root, dest, symlinks=True, ignore=_copy_filter(root, dest))
    except shutil.Error as err:
        problems = err.args[0] if err.args and isinstance(err.args[0], list) else []
        first = problems[0][2] if problems and len(problems[0]) == 3 else str(err)
        raise FetchError(f"could not copy {root}: {first}") from None
    except OSError as err:
        raise FetchError(f"could not copy {root}: {err}") from None
    commit = _head_commit(root) if (root / ".git").exists() else None
    return commit


def _copy_filter(root: Path, dest: Path) -> Callable[[str, list[str]], set[str]]:
    """The ``ignore`` callback of :func:`shutil.copytree` for a local source."""
    dest_resolved = dest.resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        here = Path(directory)
        skipped: set[str] = set()
        for name in names:
            entry = here / name
            if _skip_entry(entry, at_top=here == root, root=root, dest=dest_resolved):
                skipped.add(name)
        return skipped

    return ignore


def _skip_entry(entry: Path, *, at_top: bool, root: Path, dest: Path) -> bool:
    name = entry.name
    if name in _SKIP_ANYWHERE or (at_top and name in _SKIP_AT_TOP):
        return True
    try:
        mode = entry.lstat().st_mode
    except OSError:
        return True
    if stat.S_ISLNK(mode):
        if not _link_stays_inside(entry, root):
            logger.warning("not copying symlink that leaves the tree: %s", entry)
            return True
        return False
    if stat.S_ISDIR(mode):
        # A virtual environment under any name, or the destination itself (METASERVER_HOME
        # inside the source directory would otherwise be copied into itself).
        return (entry / "pyvenv.cfg").is_file() or entry.resolve() == dest
    # FIFOs, sockets and devices: reading a FIFO would block the copy forever.
    return not stat.S_ISREG(mode)


def _link_stays_inside(link: Path, root: Path) -> bool:
    """Whether a symlink is relative and resolves (through any chain) inside ``root``."""
    try:
        target = os.readlink(link)
    except OSError:
        return False
    if os.path.isabs(target):
        return False  # even if inside today, it names the original, not the copy
    return (link.parent / target).resolve().is_relative_to(root)


def _prune_escaping_links(root: Path) -> None:
    """Remove symlinks that point outside the workspace (from a clone or a copy)."""
    resolved_root = root.resolve()
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            entry = Path(directory) / name
            if entry.is_symlink() and not _link_stays_inside(entry, resolved_root):
                logger.warning("removing symlink that leaves the workspace: %s", entry)
                entry.unlink()


# -------------------------------------------------------------------------------------- pypi

_SIMPLE_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, "
    "application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)
# In order of preference when one version has several.
_SDIST_SUFFIXES = (".tar.gz", ".zip", ".tgz", ".tar.bz2", ".tar.xz")
_MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
_MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
_MAX_MEMBERS = 200_000
_HASH_PREFERENCE = ("sha256", "sha512", "sha384", "sha3_256", "sha3_512", "blake2b", "md5")


@dataclass(frozen=True)
class _IndexFile:
    """One file the index lists for a project."""

    filename: str
    url: str
    hashes: dict[str, str]
    yanked: bool


def _normalise(name: str) -> str:
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


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
        known = cache.recall("pypi", _normalise(name))
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
            files = await _list_files(client, settings.index.url, name)
            chosen, version = _choose_sdist_or_wheel(name, pinned, files)
            key = pypi_key(name, version)
            if pinned is None:
                cache.remember("pypi", _normalise(name), version)
            if version != pinned and await _restored(cache, key, dest):
                return version, key, True
            logger.info("downloading %s %s: %s", name, version, chosen.filename)
            with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
                archive = Path(tmp) / "sdist"
                await _download(client, chosen, archive)
                await _in_thread(_unpack, archive, chosen.filename, Path(tmp) / "tree", dest)
    except TimeoutError:
        raise _timeout_error(f"downloading {name}", timeout) from None
    except httpx.HTTPError as err:
        detail = _redact(str(err)) or type(err).__name__
        raise FetchError(f"could not download {name} from the package index: {detail}") from None
    return version, key, False


async def _restored(cache: WorkspaceCache, key: CacheKey, dest: Path) -> bool:
    return await _in_thread(cache.restore, key, dest) is not None


async def _list_files(client: httpx.AsyncClient, index: str, name: str) -> list[_IndexFile]:
    """The files the index lists for ``name``, from its JSON or HTML project page."""
    url = f"{index.rstrip('/')}/{_normalise(name)}/"
    response = await client.get(url, headers={"Accept": _SIMPLE_ACCEPT})
    if response.status_code in (404, 410):
        raise SourceError(f"unknown package on the index: {name}")
    if response.status_code >= 400:
        raise FetchError(f"package index answered HTTP {response.status_code} for {_redact(url)}")
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    page_url = str(response.url)
    if "json" in content_type:
        try:
            data = response.json()
        except ValueError:
            raise FetchError(f"package index sent invalid JSON for {name}") from None
        return _files_from_json(data, page_url)
    # PEP 503 mirrors that ignore the Accept header (or only serve HTML).
    return _files_from_html(response.text, page_url)


def _files_from_json(data: object, page_url: str) -> list[_IndexFile]:
    """Files of a PEP 691 JSON project page; malformed entries are skipped."""
    entries = data.get("files") if isinstance(data, dict) else None
    files: list[_IndexFile] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        filename, url = entry.get("filename"), entry.get("url")
        if not isinstance(filename, str) or not isinstance(url, str):
            continue
        raw_hashes = entry.get("hashes")
        hashes = {
            str(k).lower(): v
            for k, v in (raw_hashes.items() if isinstance(raw_hashes, dict) else ())
            if isinstance(v, str)
        }
        files.append(
            _IndexFile(
                filename=filename,
                url=urljoin(page_url, url),
                hashes=hashes,
                yanked=bool(entry.get("yanked", False)),
            )
        )
    return files


class _LinkParser(HTMLParser):
    """Collects the anchors of a PEP 503 project page."""

    def __init__(self, page_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = page_url
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._current: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base":
            href = dict(attrs).get("href")
            if href:
                self.base = urljoin(self.base, href)
        elif tag == "a":
            self._current = dict(attrs)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.links.append((self._current, "".join(self._text).strip()))
            self._current = None


def _files_from_html(text: str, page_url: str) -> list[_IndexFile]:
    """Files of a PEP 503 HTML project page (hash in the URL fragment, PEP 592 yanking)."""
    parser = _LinkParser(page_url)
    parser.feed(text)
    parser.close()
    files: list[_IndexFile] = []
    for attrs, label in parser.links:
        href = attrs.get("href")
        if not href:
            continue
        url, fragment = urldefrag(urljoin(parser.base, href))
        filename = label or url.rstrip("/").rsplit("/", 1)[-1]
        hashes: dict[str, str] = {}
        algorithm, sep, digest = fragment.partition("=")
        if sep and digest:
            hashes[algorithm.lower()] = digest
        files.append(
            _IndexFile(filename=filename, url=url, hashes=hashes, yanked="data-yanked" in attrs)
        )
    return files


def _choose_sdist(
    name: str, pinned: str | None, files: Iterable[_IndexFile]
) -> tuple[_IndexFile, str]:
    """Pick the sdist of the pinned version, or of the newest version that has one.

    Requires-Python is deliberately ignored: the tree is the repository, not an install.
    """
    normalised = _normalise(name)
    sdists: list[tuple[str, _IndexFile]] = []
    known_versions: set[str] = set()
    for file in files:
        version = _sdist_version(file.filename, normalised)
        if version is not None:
            sdists.append((version, file))
            known_versions.add(version)
        elif (wheel_version := _wheel_version(file.filename, normalised)) is not None:
            known_versions.add(wheel_version)
    if pinned is not None:
        return _pinned_sdist(name, pinned, sdists, known_versions)
    candidates = [(v, f) for v, f in sdists if not f.yanked and _version_key(v) is not None]
    if not candidates:
        reason = "no source distribution that is not yanked" if sdists else "no source distribution"
        raise SourceError(f"{name} has {reason} on the index")
    # Like pip: pre-releases only when there is nothing else.
    finals = [(v, f) for v, f in candidates if not _is_prerelease(v)] or candidates
    newest = max(_key(v) for v, _ in finals)
    return _prefer_format([(v, f) for v, f in finals if _key(v) == newest])


def _choose_sdist_or_wheel(
    name: str, pinned: str | None, files: list[_IndexFile]
) -> tuple[_IndexFile, str]:
    """The sdist, or for a release published only as wheels, one of its wheels.

    A wheel holds the package's Python source too (and, for a compiled one, its built
    extensions); the environment then comes from the published wheel, not from this tree.
    """
    try:
        return _choose_sdist(name, pinned, files)
    except SourceError as err:
        if "has no source distribution" not in str(err):
            raise
        wheel = _choose_wheel(name, pinned, files)
        if wheel is None:
            raise
        logger.info("%s: no source distribution; taking the tree from %s", name, wheel[0].filename)
        return wheel


def _choose_wheel(
    name: str, pinned: str | None, files: list[_IndexFile]
) -> tuple[_IndexFile, str] | None:
    normalised = _normalise(name)
    wheels = [
        (version, file)
        for file in files
        if (version := _wheel_version(file.filename, normalised)) is not None
        and _version_key(version) is not None
    ]
    if pinned is not None:
        wheels = [(v, f) for v, f in wheels if _same_version(v, pinned)]
    else:
        wheels = [(v, f) for v, f in wheels if not f.yanked]
        finals = [(v, f) for v, f in wheels if not _is_prerelease(v)] or wheels
        newest = max((_key(v) for v, _ in finals), default=None)
        wheels = [(v, f) for v, f in finals if _key(v) == newest]
    if not wheels:
        return None
    # A pure-Python wheel is the plainest view of the source.
    version, file = min(wheels, key=lambda vf: (not vf[1].filename.endswith("-none-any.whl"),))
    return file, version


def _pinned_sdist(
    name: str, pinned: str, sdists: list[tuple[str, _IndexFile]], known_versions: set[str]
) -> tuple[_IndexFile, str]:
    matches = [(v, f) for v, f in sdists if _same_version(v, pinned)]
    if not matches:
        if any(_same_version(v, pinned) for v in known_versions):
            raise SourceError(f"{name} {pinned} has no source distribution on the index")
        raise SourceError(f"{name} has no version {pinned} on the index")
    live = [(v, f) for v, f in matches if not f.yanked]
    if not live:
        # PEP 592: an exact pin may still select a yanked release.
        logger.warning("%s %s is yanked on the index; fetching it as pinned", name, pinned)
        live = matches
    return _prefer_format(live)


def _prefer_format(choices: list[tuple[str, _IndexFile]]) -> tuple[_IndexFile, str]:
    def rank(choice: tuple[str, _IndexFile]) -> int:
        lower = choice[1].filename.lower()
        return next(i for i, suffix in enumerate(_SDIST_SUFFIXES) if lower.endswith(suffix))

    version, file = min(choices, key=rank)
    return file, version


def _sdist_version(filename: str, normalised: str) -> str | None:
    """The version in ``{name}-{version}.tar.gz`` when ``name`` is the project's."""
    lower = filename.lower()
    suffix = next((s for s in _SDIST_SUFFIXES if lower.endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    # Old sdists keep dashes in the name (python-dateutil-2.8.2), so try every split point.
    for index, char in enumerate(stem):
        if char == "-" and _normalise(stem[:index]) == normalised:
            return stem[index + 1 :] or None
    return None


def _wheel_version(filename: str, normalised: str) -> str | None:
    if not filename.lower().endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) >= 5 and _normalise(parts[0]) == normalised:
        return parts[1]
    return None


# PEP 440, as in the ``packaging`` project (not a dependency of metaserver).
_PEP440_RE = re.compile(
    r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_BELOW: tuple[int, ...] = (0,)  # sorts before any present component
_ABOVE: tuple[int, ...] = (2,)  # sorts after any present component
_VersionKey = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], str]


def _version_key(version: str) -> _VersionKey | None:
    """A sort key with PEP 440 ordering, or None for a version PEP 440 cannot read."""
    match = _PEP440_RE.match(version)
    if not match:
        return None
    release = [int(part) for part in match.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()  # 1.0 == 1.0.0
    pre_l, dev_l = match.group("pre_l"), match.group("dev_l")
    post_present = match.group("post") is not None
    pre: tuple[int, ...]
    if pre_l:
        pre = (1, _PRE_RANK[pre_l.lower()], int(match.group("pre_n") or 0))
    elif dev_l and not post_present:
        pre = _BELOW  # 1.0.dev1 comes before 1.0a1
    else:
        pre = _ABOVE
    post_n = match.group("post_n1") or match.group("post_n2")
    post = (1, int(post_n or 0)) if post_present else _BELOW
    dev = (1, int(match.group("dev_n") or 0)) if dev_l else _ABOVE
    return (int(match.group("epoch") or 0), tuple(release), pre, post, dev, "")


def _key(version: str) -> _VersionKey:
    key = _version_key(version)
    if key is None:  # callers filter these out first
        raise ValueError(f"not a PEP 440 version: {version}")
    return key


def _same_version(found: str, pinned: str) -> bool:
    found_key, pinned_key = _version_key(found), _version_key(pinned)
    if found_key is None or pinned_key is None:
        return found.lower() == pinned.lower()
    return found_key == pinned_key


def _is_prerelease(version: str) -> bool:
    match = _PEP440_RE.match(version)
    return bool(match and (match.group("pre_l") or match.group("dev_l")))


def _pick_hash(hashes: dict[str, str]) -> tuple[str, str] | None:
    for algorithm in _HASH_PREFERENCE:
        if algorithm in hashes:
            return algorithm, hashes[algorithm].lower()
    return None


async def _download(client: httpx.AsyncClient, file: _IndexFile, target: Path) -> None:
    """Stream ``file`` to ``target``, checking its size and the index's hash."""
    expected = _pick_hash(file.hashes)
    if expected is None:
        logger.warning("the index gives no hash for %s; it is not verified", file.filename)
    digest = hashlib.new(expected[0] if expected else "sha256")
    size = 0
    async with client.stream("GET", file.url) as response:
        if response.status_code >= 400:
            raise FetchError(f"download of {file.filename} failed: HTTP {response.status_code}")
        with target.open("wb") as out:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > _MAX_ARCHIVE_BYTES:
                    raise FetchError(
                        f"{file.filename} is larger than {_MAX_ARCHIVE_BYTES // 2**20} MiB"
                    )
                digest.update(chunk)
                out.write(chunk)
    if expected is not None and digest.hexdigest() != expected[1]:
        raise FetchError(
            f"{expected[0]} of {file.filename} does not match the index "
            f"(expected {expected[1]}, got {digest.hexdigest()})"
        )


def _unpack(archive: Path, filename: str, work: Path, dest: Path) -> None:
    """Unpack into ``work``, then move the project root (the single top directory) to dest."""
    work.mkdir()
    if filename.lower().endswith((".zip", ".whl")):
        _extract_zip(archive, filename, work)
    else:
        _extract_tar(archive, filename, work)
    entries = list(work.iterdir())
    only = entries[0] if len(entries) == 1 else None
    root = only if only is not None and only.is_dir() and not only.is_symlink() else work
    root.rename(dest)


def _check_archive_size(filename: str, members: int, unpacked: int) -> None:
    if members > _MAX_MEMBERS:
        raise FetchError(f"{filename} has more than {_MAX_MEMBERS} members")
    if unpacked > _MAX_UNPACKED_BYTES:
        raise FetchError(f"{filename} unpacks to more than {_MAX_UNPACKED_BYTES // 2**30} GiB")


def _extract_tar(archive: Path, filename: str, work: Path) -> None:
    try:
        with tarfile.open(archive, "r:*") as tar:
            members = tar.getmembers()
            _check_archive_size(filename, len(members), sum(m.size for m in members if m.isreg()))
            # The "data" filter refuses absolute paths, "..", links out of the tree, devices,
            # and drops set-uid bits: the archive is untrusted.
            tar.extractall(work, filter="data")
    except tarfile.FilterError as err:
        raise FetchError(f"unsafe member in {filename}: {err}") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise FetchError(f"could not unpack {filename}: {err}") from None


def _extract_zip(archive: Path, filename: str, work: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            infos = zipped.infolist()
            _check_archive_size(filename, len(infos), sum(i.file_size for i in infos))
            for info in infos:
                _check_member_name(filename, info.filename)
            zipped.extractall(work)  # noqa: S202 - every member name was checked above
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, OSError) as err:
        raise FetchError(f"could not unpack {filename}: {err}") from None


def _check_member_name(filename: str, member: str) -> None:
    """Refuse a zip member that would land outside the extraction directory."""
    path = PurePosixPath(member)
    unsafe = (
        not member
        or "\\" in member
        or "\x00" in member
        or path.is_absolute()
        or re.match(r"^[A-Za-z]:", member) is not None
        or ".." in path.parts
    )
    if unsafe:
        raise FetchError(f"unsafe member in {filename}: {member!r}")


# ---------------------------------------------------------------------- after every fetch

_MAX_METADATA_BYTES = 1024 * 1024
_SETUP_NAME_RE = re.compile(r"""\bname\s*=\s*(['"])([A-Za-z0-9._-]+)\1""")


def _inspect_tree(workspace: Workspace) -> Workspace:
    """Clean the tree, read its name and version, and insist that it holds Python."""
    root = workspace.path
    _prune_escaping_links(root)
    name, version = _read_metadata(root)
    if not _has_python(root):
        raise SourceError(f"no Python package found in {_redact(workspace.source.original)}")
    return workspace.model_copy(
        update={"distribution": name, "version": workspace.version or version}
    )


def _read_text(path: Path) -> str | None:
    """A metadata file's text, or None if absent, unreadable, or implausibly large."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_METADATA_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_metadata(root: Path) -> tuple[str | None, str | None]:
    """Project name and version from static metadata; no project code runs."""
    name: str | None = None
    version: str | None = None
    readers = (_from_pkg_info, _from_dist_info, _from_pyproject, _from_setup_cfg, _from_setup_py)
    for reader in readers:
        found_name, found_version = reader(root)
        if name is None and found_name and PYPI_NAME_RE.match(found_name):
            name = found_name
        if version is None and found_version:
            version = found_version
    return name, version


def _from_pkg_info(root: Path) -> tuple[str | None, str | None]:
    text = _read_text(root / "PKG-INFO")
    if text is None:
        return None, None
    headers = email.parser.HeaderParser().parsestr(text)
    return _clean(headers.get("Name")), _clean(headers.get("Version"))


def _from_dist_info(root: Path) -> tuple[str | None, str | None]:
    """A tree unpacked from a wheel: its one ``*.dist-info/METADATA``."""
    found = list(root.glob("*.dist-info/METADATA"))
    text = _read_text(found[0]) if len(found) == 1 else None
    if text is None:
        return None, None
    headers = email.parser.HeaderParser().parsestr(text)
    return _clean(headers.get("Name")), _clean(headers.get("Version"))


def _from_pyproject(root: Path) -> tuple[str | None, str | None]:
    text = _read_text(root / "pyproject.toml")
    if text is None:
        return None, None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        logger.warning("ignoring unreadable pyproject.toml in %s: %s", root, err)
        return None, None
    project = data.get("project")
    if isinstance(project, dict) and project.get("name"):
        return _clean(project.get("name")), _clean(project.get("version"))
    # Poetry before PEP 621 keeps the metadata under [tool.poetry].
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict):
        return _clean(poetry.get("name")), _clean(poetry.get("version"))
    return None, None


def _from_setup_cfg(root: Path) -> tuple[str | None, str | None]:
    text = _read_text(root / "setup.cfg")
    if text is None:
        return None, None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error as err:
        logger.warning("ignoring unreadable setup.cfg in %s: %s", root, err)
        return None, None
    version = _clean(parser.get("metadata", "version", fallback=None))
    if version and ":" in version:
        version = None  # "attr: pkg.__version__" or "file: VERSION" need code or more files
    return _clean(parser.get("metadata", "name", fallback=None)), version


def _from_setup_py(root: Path) -> tuple[str | None, str | None]:
    text = _read_text(root / "setup.py")
    if text is None:
        return None, None
    # Prefer a name= inside the setup( call over an Extension(name=...) before it.
    start = text.find("setup(")
    match = _SETUP_NAME_RE.search(text, start if start >= 0 else 0) or _SETUP_NAME_RE.search(text)
    return (match.group(2) if match else None), None


def _clean(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def _has_python(root: Path) -> bool:
    """Project metadata, a package directory (top level or src/), or a top-level module."""
    if any((root / marker).is_file() for marker in ("pyproject.toml", "setup.py", "setup.cfg")):
        return True
    for base in (root, root / "src"):
        if base.is_dir() and any(
            child.is_dir() and (child / "__init__.py").is_file() for child in base.iterdir()
        ):
            return True
    return any(child.suffix == ".py" and child.is_file() for child in root.iterdir())
