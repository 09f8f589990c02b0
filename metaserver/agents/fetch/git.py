"""git sources: a shallow clone (``--depth 1``), remote helpers and submodules off, no prompts.

One ``git ls-remote`` first resolves the ref to a commit, so that a commit fetched before can
come from the workspace cache; the clone then takes the cheapest route to the ref (a full clone
only for an abbreviated commit, or a server that will not serve a commit by id). Every git
command runs through GitPython's command wrapper under one deadline, so a hung server cannot
hold the stage.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from metaserver.agents.fetch.common import redact, timeout_error
from metaserver.contracts import Source
from metaserver.exceptions import FetchError, SourceError
from metaserver.fs import remove_tree

logger = logging.getLogger(__name__)

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
            raise timeout_error("git", self.timeout)
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
                raise timeout_error("git", self.timeout) from None
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
                return redact(line)
    return redact(lines[-1]) if lines else "git failed without a message"


def resolve_remote(source: Source, timeout: float) -> str | None:
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
        logger.info("could not resolve %s remotely: %s", redact(source.location), err)
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


def clone_git(source: Source, dest: Path, timeout: float) -> str | None:
    """Clone ``source`` into ``dest`` (git creates it) and return the checked-out commit."""
    git = _import_git()
    url = source.location
    # parse_source already refuses these; GitPython's own check is a second, independent one.
    try:
        git.Git.check_unsafe_protocols(url)
    except git.UnsafeProtocolError:
        raise SourceError(f"unsafe git URL (remote helper transport): {redact(url)!r}") from None
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
            raise SourceError(f"no branch, tag or commit {ref!r} in {redact(url)}") from None
        raise FetchError(f"git could not fetch {redact(url)}: {failure.line}") from None
    return head_commit(dest)


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
        remove_tree(dest)
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
        remove_tree(dest)
        _clone(runner, url, dest, shallow=False, checkout=False)
    _checkout_commit(runner, url, dest, sha)


def _checkout_commit(runner: _Git, url: str, dest: Path, ref: str) -> None:
    try:
        full = runner.run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=dest)
    except _GitFailure:
        raise SourceError(f"no branch, tag or commit {ref!r} in {redact(url)}") from None
    runner.run(["checkout", "--quiet", "--detach", full.strip()], cwd=dest)


def head_commit(path: Path) -> str | None:
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
