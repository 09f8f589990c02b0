"""The change as a ``git format-patch`` file, as a branch of a clone, or as plain files.

The patch is made in a scratch repository holding only the files the change edits, as they
were at the converted commit: the diff of a new file or of an edited one is the same there
as in the whole repository, so ``git am`` applies it on that commit, and nothing of the
repository's history is needed (a conversion keeps a shallow clone, or none). A branch
applies that patch to a temporary index of the user's clone and commits it with plumbing,
so that the user's checkout, index and HEAD stay as they were.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from metaserver import __version__
from metaserver.exceptions import ExportError, UserError
from metaserver.export.git import run_git
from metaserver.export.tree import Change

__all__ = ["format_patch", "make_branch", "write_files"]

_FORMAT_OPTIONS = (
    "format-patch",
    "-1",
    "--stdout",
    "--full-index",  # whole blob ids: git am can fall back to a three-way merge
    "--zero-commit",  # the scratch commit's id means nothing in the real repository
    f"--signature=metaserver {__version__}",
    "--stat=72",
)


def format_patch(change: Change) -> str:
    """The change as one ``git format-patch`` mail, byte for byte the same for one version."""
    with tempfile.TemporaryDirectory(prefix="metaserver-export-") as scratch:
        root = Path(scratch) / "repo"
        root.mkdir()
        run_git(["init", "-q", "-b", "base"], root, change.date)
        for path, data in change.originals.items():
            _write(root, path, data)
        run_git(["add", "-A"], root, change.date)
        run_git(["commit", "-q", "--allow-empty", "-m", "base"], root, change.date)
        for path, data in change.files.items():
            _write(root, path, data)
        run_git(["add", "-A"], root, change.date)
        run_git(["commit", "-q", "-F", "-"], root, change.date, stdin=change.message.encode())
        return run_git(list(_FORMAT_OPTIONS), root, change.date).decode("utf-8")


def make_branch(change: Change, repo: Path, name: str) -> str:
    """Commit the change on a new branch ``name`` of the clone at ``repo``, on the converted
    commit; the new commit's id. The working tree, index and HEAD are not touched.

    Raises:
        UserError: ``repo`` is no git repository, lacks the commit, ``name`` is no branch
            name or is taken, or the commit's files differ from what was converted.
    """
    if change.commit is None:
        raise UserError("a branch needs the commit the server was converted from")
    if not repo.is_dir():
        raise UserError(f"{repo} is not a directory")
    try:
        run_git(["rev-parse", "--git-dir"], repo, change.date)
    except ExportError:
        raise UserError(f"{repo} is not a git repository") from None
    try:
        run_git(["check-ref-format", "--branch", name], repo, change.date)
    except ExportError:
        raise UserError(f"{name!r} is not a valid branch name") from None
    try:
        run_git(["cat-file", "-e", f"{change.commit}^{{commit}}"], repo, change.date)
    except ExportError:
        raise UserError(
            f"{repo} does not hold commit {change.commit}, which the server was converted "
            "from; fetch it first"
        ) from None
    patch = format_patch(change).encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="metaserver-export-") as scratch:
        index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        run_git(["read-tree", change.commit], repo, change.date, extra_env=index)
        try:
            run_git(["apply", "--cached", "-"], repo, change.date, stdin=patch, extra_env=index)
        except ExportError as exc:
            raise UserError(
                f"the change does not apply on {change.commit} in {repo}: {exc}"
            ) from None
        tree = run_git(["write-tree"], repo, change.date, extra_env=index).decode().strip()
    message = change.message.encode()
    commit = (
        run_git(["commit-tree", tree, "-p", change.commit, "-F", "-"], repo, change.date, message)
        .decode()
        .strip()
    )
    try:
        # The empty old value: created only if no such branch exists, atomically.
        run_git(["update-ref", f"refs/heads/{name}", commit, ""], repo, change.date)
    except ExportError:
        raise UserError(f"branch {name!r} already exists in {repo}") from None
    return commit


def write_files(change: Change, directory: Path) -> list[str]:
    """The change's files under ``directory`` (absent or empty), at their repository paths,
    to copy over the source tree; the paths written.

    Raises:
        UserError: ``directory`` exists and is not an empty directory.
    """
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UserError(f"{directory} exists and is not an empty directory")
    directory.mkdir(parents=True, exist_ok=True)
    for path, data in change.files.items():
        _write(directory, path, data)
    return list(change.files)


def _write(root: Path, relative: str, data: bytes) -> None:
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts or not parts:
        raise ExportError(f"refusing to write {relative!r} outside the export")
    target = root.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
