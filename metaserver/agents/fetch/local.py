"""Local directory sources: a copy that skips VCS data, virtual environments and build output.

The copy is the workspace, so the original is never touched by later stages. Only project
directories are copied, within bounds, and a tree holding FIFOs, sockets or devices is refused
(:mod:`metaserver.agents.fetch.local_guard`); symlinks that leave the tree are not copied (nor
followed), and the same symlink pruning is applied to every fetched tree before its metadata
is read.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from metaserver.agents.fetch.git import head_commit
from metaserver.agents.fetch.local_guard import CopyBudget, check_project_directory
from metaserver.exceptions import FetchError, SourceError
from metaserver.fs import file_sha256

logger = logging.getLogger(__name__)

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


def copy_local(original: Path, dest: Path, budget: CopyBudget | None = None) -> str | None:
    """Copy the directory into ``dest``; return its HEAD commit if it is a git checkout.

    Raises:
        SourceError: not a project directory (:mod:`metaserver.agents.fetch.local_guard`),
            a special file inside, or over the ``budget``.
    """
    root = original.resolve()
    if not root.is_dir():
        raise SourceError(f"not a directory: {root}")
    check_project_directory(root)
    budget = budget or CopyBudget(2**31, 100_000, 120)

    def copy_file(src: str, dst: str) -> object:
        budget.check_time()  # a directory of many files is bounded between files too
        return shutil.copy2(src, dst, follow_symlinks=False)

    try:
        shutil.copytree(
            root,
            dest,
            symlinks=True,
            ignore=_copy_filter(root, dest, budget),
            copy_function=copy_file,
        )
    except shutil.Error as err:
        problems = err.args[0] if err.args and isinstance(err.args[0], list) else []
        first = problems[0][2] if problems and len(problems[0]) == 3 else str(err)
        raise FetchError(f"could not copy {root}: {first}") from None
    except OSError as err:
        raise FetchError(f"could not copy {root}: {err}") from None
    commit = head_commit(root) if (root / ".git").exists() else None
    return commit


def _copy_filter(
    root: Path, dest: Path, budget: CopyBudget
) -> Callable[[str, list[str]], set[str]]:
    """The ``ignore`` callback of :func:`shutil.copytree` for a local source; every entry it
    lets through is counted against ``budget`` before it is copied."""
    dest_resolved = dest.resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        here = Path(directory)
        skipped: set[str] = set()
        for name in names:
            entry = here / name
            if _skip_entry(
                entry, at_top=here == root, root=root, dest=dest_resolved, budget=budget
            ):
                skipped.add(name)
        return skipped

    return ignore


def _skip_entry(entry: Path, *, at_top: bool, root: Path, dest: Path, budget: CopyBudget) -> bool:
    name = entry.name
    if name in _SKIP_ANYWHERE or (at_top and name in _SKIP_AT_TOP):
        return True
    try:
        info = entry.lstat()
    except OSError:
        return True
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        if not _link_stays_inside(entry, root):
            logger.warning("not copying symlink that leaves the tree: %s", entry)
            return True
    elif stat.S_ISDIR(mode) and ((entry / "pyvenv.cfg").is_file() or entry.resolve() == dest):
        # A virtual environment under any name, or the destination itself (METASERVER_HOME
        # inside the source directory would otherwise be copied into itself).
        return True
    # FIFOs, sockets and devices refuse the source (reading a FIFO blocks forever); the rest
    # counts against the copy's bounds.
    budget.spend(entry, info)
    return False


def _link_stays_inside(link: Path, root: Path) -> bool:
    """Whether a symlink is relative and resolves (through any chain) inside ``root``."""
    try:
        target = os.readlink(link)
    except OSError:
        return False
    if os.path.isabs(target):
        return False  # even if inside today, it names the original, not the copy
    return (link.parent / target).resolve().is_relative_to(root)


def prune_escaping_links(root: Path) -> None:
    """Remove symlinks that point outside the workspace (from a clone or a copy)."""
    resolved_root = root.resolve()
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            entry = Path(directory) / name
            if entry.is_symlink() and not _link_stays_inside(entry, resolved_root):
                logger.warning("removing symlink that leaves the workspace: %s", entry)
                entry.unlink()


def tree_fingerprint(root: Path) -> str:
    """A digest of a copied tree's content: relative paths, link targets and file bytes.

    A local directory can change between conversions, so it has no name-based cache key;
    its copy cannot (the copy is private), so hashing the copy identifies exactly what the
    environment is built from, and a repeated conversion of an unchanged tree reuses it.
    """
    digest = hashlib.sha256()
    for directory, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if (Path(directory) / d).is_symlink()]:
            entry = Path(directory) / name
            relative = entry.relative_to(root).as_posix()
            if entry.is_symlink():
                digest.update(f"L {relative} -> {os.readlink(entry)}\n".encode())
                continue
            mode = entry.stat().st_mode & 0o111
            digest.update(f"F {relative} {mode:o} {file_sha256(entry)}\n".encode())
    return f"local:{digest.hexdigest()}"
