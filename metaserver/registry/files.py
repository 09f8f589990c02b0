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

from metaserver.fs import remove_tree
from metaserver.registry.locks import is_live, server_lock
from metaserver.registry.records import ServerRecord, split_ref
from metaserver.registry.store import Registry
from metaserver.settings import Settings

logger = logging.getLogger(__name__)


def version_dirs(settings: Settings) -> tuple[Path, Path, Path]:
    """The directories that hold versions' files, one ``<name>-<version>`` entry each."""
    return settings.servers_dir, settings.environments_dir, settings.workspaces_dir


def owned_paths(settings: Settings, record: ServerRecord) -> list[Path]:
    """The paths of ``record`` that live in the home's version directories (and may go)."""
    parents = {p.absolute() for p in version_dirs(settings)}
    paths = [record.output_dir, record.venv, record.workspace]
    return [p for p in paths if p is not None and p.absolute().parent in parents]


def discard_files(
    settings: Settings, removed: Iterable[ServerRecord], registry: Registry
) -> list[Path]:
    """Delete the directories of unregistered versions ``removed``, except any still in use.

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
        for path in owned_paths(settings, record):
            if path.absolute() in in_use:
                continue
            for doomed in [path, *path.parent.glob(f".{path.name}.*")]:
                if doomed.exists() or doomed.is_symlink():
                    remove_tree(doomed)
                    deleted.append(doomed)
    return deleted


def sweep_unregistered(settings: Settings, name: str, registry: Registry, keep: str) -> list[Path]:
    """Delete ``<name>-<token>`` directories of no registered version of ``name``.

    These are what a replaced version left when its owner was killed before deleting them,
    or what a killed or failed conversion of ``name`` left. ``keep`` is the token of the
    conversion that is registering now. Call it under :func:`~metaserver.registry.locks.
    server_lock`; the directories of a conversion that is still running, in any process
    (its lease is held, :func:`~metaserver.registry.locks.is_live`), are never touched.
    """
    tokens = {keep}
    for record in registry.versions(name):
        # By its directories, not its id: a re-converted commit keeps its version id while
        # its files are the new conversion's (Registry.register), so the old ones can go.
        tokens.update(p.name.rpartition("-")[2] for p in owned_paths(settings, record))
    deleted = []
    for parent in version_dirs(settings):
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            token = version_token(name, path.name)
            if token is not None and token not in tokens and not is_live(settings, token):
                remove_tree(path)
                deleted.append(path)
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


def version_token(name: str, entry: str) -> str | None:
    """The token of ``entry`` if it is ``<name>-<token>`` or a scratch ``.<name>-<token>.*``."""
    if entry.startswith("."):
        entry = entry[1:].split(".", 1)[0]  # server names have no dots
    stem, _, token = entry.rpartition("-")
    return token if stem == name and token else None


def unregister(settings: Settings, ref: str) -> list[ServerRecord]:
    """Remove ``name`` (every version) or ``name@version`` from the registry, then its files.

    Returns:
        The versions removed, newest first.

    Raises:
        NotFoundError: no such server or version.
    """
    name, version = split_ref(ref)
    registry = Registry(settings.registry_path)
    with server_lock(settings, name):
        removed = registry.remove(name, version)
        discard_files(settings, removed, registry)
    return removed
