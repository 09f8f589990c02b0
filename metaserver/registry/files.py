"""The files of registered versions, and the leftovers of conversions that never finished.

A version owns three directories, named ``<name>-<version>`` by the pipeline: its generated
server (``servers/``), its environment (``environments/``) and its workspace (``workspaces/``),
and the stages' scratch directories beside them (``.<name>-<version>.build``, ``.repair``).
They are deleted only after the version's rows are gone (committed), so that a crash between
the two leaves unregistered directories, swept later, and never a row pointing at nothing.

Only a direct child of one of those three directories is ever deleted, and never one that a
remaining version still uses: a record can name any path (tests register the project's own
interpreter as a venv), and a path outside the home is not ours to delete.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from metaserver.contracts import SERVER_NAME
from metaserver.exceptions import NotFoundError
from metaserver.fs import remove_tree
from metaserver.registry.locks import (
    FilesGoneError,
    FilesLease,
    deleting,
    is_live,
    server_lock,
    versions_leases,
)
from metaserver.registry.records import ServerRecord, split_ref
from metaserver.registry.store import Registry
from metaserver.settings import Settings

logger = logging.getLogger(__name__)


class ServerRemovedError(NotFoundError):
    """A version was unregistered (by this process or another) before its child started."""

    def __init__(self, record: ServerRecord) -> None:
        super().__init__(f"server {record.ref!r} was removed: it is no longer registered")


def version_dirs(settings: Settings) -> tuple[Path, Path, Path]:
    """The directories that hold versions' files, one ``<name>-<version>`` entry each."""
    return settings.servers_dir, settings.environments_dir, settings.workspaces_dir


def owned_paths(settings: Settings, record: ServerRecord) -> list[Path]:
    """The paths of ``record`` that live in the home's version directories (and may go)."""
    parents = {p.absolute() for p in version_dirs(settings)}
    paths = [record.output_dir, record.venv, record.workspace]
    return [p for p in paths if p is not None and p.absolute().parent in parents]


def hold_files(settings: Settings, record: ServerRecord, registry: Registry | None) -> FilesLease:
    """Lease the files ``record``'s child is about to run from, for the child's life, and
    check in ``registry`` (when given) that the version is still registered.

    The lease is taken before the check, as a removal deletes only after its rows are gone:
    either the check sees the removal, or the removal sees the lease and leaves the files.

    Raises:
        ServerRemovedError: the version is no longer registered, or its files are being
            deleted.
    """
    try:
        lease = FilesLease(settings, {p.name for p in owned_paths(settings, record)})
    except FilesGoneError:
        raise ServerRemovedError(record) from None
    try:
        if registry is not None and not is_registered(settings, record, registry):
            raise ServerRemovedError(record)
    except BaseException:
        lease.release()
        raise
    return lease


def is_registered(settings: Settings, record: ServerRecord, registry: Registry) -> bool:
    """Whether a registered version still runs from ``record``'s files (one light query)."""
    mine = {p.absolute() for p in owned_paths(settings, record)}
    return not mine or bool(mine & {p.absolute() for p in registry.paths()})


def discard_files(
    settings: Settings, removed: Iterable[ServerRecord], registry: Registry
) -> list[Path]:
    """Delete the directories of unregistered versions ``removed``, except any still in use:
    by a remaining version, or by a live child of any process (its files lease is held:
    those stay, for a later :func:`sweep_home` once the child has stopped).

    Call it after the rows are gone. Returns the paths deleted.
    """
    removed = list(removed)
    names = {record.name for record in removed}
    in_use = {
        path.absolute()
        for name in names
        for record in registry.versions(name)
        for path in owned_paths(settings, record)
    }
    deleted = []
    for record in removed:
        paths = [p for p in owned_paths(settings, record) if p.absolute() not in in_use]
        for entry in sorted({p.name for p in paths}):
            with deleting(settings, entry) as free:
                if not free:
                    logger.info("kept %s: a live server runs from it (deleted later)", entry)
                    continue
                for path in (p for p in paths if p.name == entry):
                    deleted += _delete_entry(path)
    return deleted


def sweep_home(settings: Settings, registry: Registry) -> list[Path]:
    """Delete every ``<name>-<token>`` entry of the version directories, of any server, that
    no registered version uses, no running conversion owns and no live child runs from.

    These are what a killed conversion or batch left (its lease ended with its process),
    the scratch directories of ended conversions,
    what a replaced or removed version left while a child of another process still ran
    from it, and what a process killed between a removal's rows and its files left. Whoever
    registers or removes a server, and ``serve`` at its start, sweeps.
    """
    candidates = []
    for parent in version_dirs(settings):
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            parsed = entry_of(path.name)
            # A live conversion's entries first: its lease ends only after it registered,
            # so an entry not live now is either registered in the read below, or a leftover.
            if parsed is not None and not is_live(settings, parsed[1]):
                candidates.append(path)
    if not candidates:
        return []
    parents = {p.absolute() for p in version_dirs(settings)}
    used = {p.absolute().name for p in registry.paths() if p.absolute().parent in parents}
    deleted = []
    for path in candidates:
        parsed = entry_of(path.name)
        assert parsed is not None
        entry = f"{parsed[0]}-{parsed[1]}"
        # A scratch entry (``.<name>-<token>.*``) is no version's, once its conversion ended.
        if entry in used and not path.name.startswith("."):
            continue
        with deleting(settings, entry) as free:
            if free and (path.exists() or path.is_symlink()):
                remove_tree(path)
                deleted.append(path)
    _sweep_leases(settings)
    return deleted


def _sweep_leases(settings: Settings) -> None:
    """Delete the files leases of entries that have no directory left (none to protect)."""
    present = {
        entry
        for parent in version_dirs(settings)
        if parent.is_dir()
        for path in parent.iterdir()
        if (entry := entry_of(path.name)) is not None
    }
    for lease in versions_leases(settings).glob("*.lock"):
        parsed = entry_of(lease.stem)
        if parsed is None or parsed in present:
            continue
        with deleting(settings, lease.stem):
            pass  # held: unlinked on the way out; a live child's stays


def _delete_entry(path: Path) -> list[Path]:
    deleted = []
    for doomed in [path, *path.parent.glob(f".{path.name}.*")]:
        if doomed.exists() or doomed.is_symlink():
            remove_tree(doomed)
            deleted.append(doomed)
    return deleted


def discard_conversion(settings: Settings, name: str, token: str) -> list[Path]:
    """Delete what conversion ``token`` of ``name`` made, which never registered: its
    ``<name>-<token>`` directories and their scratch ``.<name>-<token>.*`` siblings."""
    deleted = []
    for parent in version_dirs(settings):
        entry = parent / f"{name}-{token}"
        for doomed in [entry, *parent.glob(f".{entry.name}.*")]:
            if doomed.exists() or doomed.is_symlink():
                remove_tree(doomed)
                deleted.append(doomed)
    return deleted


def entry_of(entry: str) -> tuple[str, str] | None:
    """(name, token) of ``<name>-<token>`` or of a scratch ``.<name>-<token>.*``; None for
    any other entry (never one of a version, never deleted)."""
    if entry.startswith("."):
        entry = entry[1:].split(".", 1)[0]  # server names have no dots
    stem, _, token = entry.rpartition("-")
    if not SERVER_NAME.match(stem) or not token or not token.isalnum():
        return None
    return stem, token


def unregister(settings: Settings, ref: str) -> list[ServerRecord]:
    """Remove ``name`` (every version) or ``name@version`` from the registry, then its files.

    Returns:
        The versions removed, newest first.

    Raises:
        NotFoundError: no such server or version.
    """
    name, version = split_ref(ref)
    if not SERVER_NAME.match(name):
        # No server is called so; and the name must not reach the lock's file name
        # (``../../x`` made a file outside the home, ``a/b`` was an internal error).
        raise NotFoundError(f"no registered server named {name!r}")
    registry = Registry(settings.registry_path)
    with server_lock(settings, name):
        removed = registry.remove(name, version)
    discard_removed(settings, removed, registry)
    return removed


def discard_removed(
    settings: Settings, removed: list[ServerRecord], registry: Registry
) -> list[Path]:
    """After a removal's rows went (and this process's children of them stopped): delete
    their files that no live child uses, then sweep the home. Returns the paths deleted."""
    deleted = []
    for name in sorted({record.name for record in removed}):
        with server_lock(settings, name):
            deleted += discard_files(settings, [r for r in removed if r.name == name], registry)
    return deleted + sweep_home(settings, registry)
