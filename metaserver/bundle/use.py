"""Converting from a bundle: no network, every tree and distribution from the bundle."""

from __future__ import annotations

import shutil
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
        UserError: not a bundle, or ``source`` is not in it (the message names what it holds).
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
        shutil.copytree(directory / "workspaces" / entry, store / entry, symlinks=True)
    if (directory / "workspaces" / "aliases").is_dir():  # a git ref's commit, for offline use
        shutil.copytree(directory / "workspaces" / "aliases", store / "aliases", dirs_exist_ok=True)
    index = IndexSettings(
        url=settings.index.url,
        offline=True,
        find_links=str(directory / "wheels"),
        bundle=directory,
    )
    return settings.model_copy(update={"index": index})
