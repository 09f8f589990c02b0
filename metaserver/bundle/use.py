"""Converting from a bundle: no network, every tree and distribution from the bundle."""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from pathlib import Path

from metaserver.bundle.manifest import read_manifest
from metaserver.exceptions import UserError
from metaserver.settings import IndexSettings, Settings


def first_bundled(directory: Path, sources: list[str]) -> str:
    """The first of ``sources`` (a paper's repositories, in its order) the bundle at
    ``directory`` holds: the one ``metaserver bundle`` fetched, which need not be the first
    link. ``sources[0]`` when it holds none, for :func:`use_bundle` to refuse by name.

    Raises:
        UserError: not a bundle.
    """
    manifest = read_manifest(directory.resolve())
    return next((s for s in sources if manifest.find(s) is not None), sources[0])


def use_bundle(settings: Settings, directory: Path, source: str) -> Settings:
    """Settings that convert ``source`` from the bundle at ``directory`` and nothing else.

    The source's fetched tree is added to the home's workspace cache (once: a later
    conversion finds it there), with the bundle's remembered refs, and the index is replaced
    by the bundle's wheels, offline.

    Raises:
        UserError: not a bundle, ``source`` is not in it (the message names what it holds),
            or its tree holds a link out of itself or a special file (nothing is copied).
    """
    directory = directory.resolve()
    manifest = read_manifest(directory)
    bundled = manifest.find(source)
    if bundled is None:
        held = ", ".join(s.source for s in manifest.sources) or "nothing"
        raise UserError(
            f"{source} is not in the bundle at {directory} (it holds: {held}); "
            f"make one with: metaserver bundle {source} --output DIR"
        )
    store = settings.workspace_store
    # The cache keeps an entry as <kind>/<digest>, and a fingerprint is "<kind>:<digest>".
    entry = Path(*bundled.fingerprint.split(":", 1))
    if (directory / "workspaces" / entry).is_dir() and not (store / entry).exists():
        _copy_checked(directory / "workspaces" / entry, store / entry, source)
    if (directory / "workspaces" / "aliases").is_dir():  # a git ref's commit, for offline use
        shutil.copytree(directory / "workspaces" / "aliases", store / "aliases", dirs_exist_ok=True)
    index = IndexSettings(
        url=settings.index.url,
        offline=True,
        find_links=str(directory / "wheels"),
        bundle=directory,
    )
    return settings.model_copy(update={"index": index})


def _copy_checked(tree: Path, dest: Path, source: str) -> None:
    """Copy a bundled ``tree`` to the cache entry ``dest``, whole or not at all.

    A bundle is a directory anyone can hand over: its tree is checked before any of it is
    copied (a link that leaves the tree, or a device or FIFO, is refused), and it is copied
    beside ``dest`` first, so that a failure leaves no partial entry in the cache.

    Raises:
        UserError: the tree holds a link out of itself or a special file.
    """
    root = tree.resolve()
    for folder, directories, files in os.walk(tree):
        for name in [*directories, *files]:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            relative = path.relative_to(tree)
            if stat.S_ISLNK(mode):
                target = os.readlink(path)
                resolved = (path.parent / target).resolve()
                if os.path.isabs(target) or not resolved.is_relative_to(root):
                    raise UserError(
                        f"the bundle's tree of {source} holds a link out of it ({relative}); "
                        "make the bundle again with `metaserver bundle`"
                    )
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UserError(f"the bundle's tree of {source} holds a special file ({relative})")
    temporary = dest.with_name(f".{dest.name}.{secrets.token_hex(4)}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(tree, temporary, symlinks=True)
        temporary.rename(dest)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)
