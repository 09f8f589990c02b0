"""Converting from a bundle: no network, every tree and distribution from the bundle."""

from __future__ import annotations

import shutil
from pathlib import Path

from metaserver.bundle.manifest import read_manifest
from metaserver.exceptions import UserError
from metaserver.settings import IndexSettings, Settings


def use_bundle(settings: Settings, directory: Path, source: str) -> Settings:
    """Settings that convert ``source`` from the bundle at ``directory`` and nothing else.

    The bundle's fetched trees are merged into the home's workspace cache, and the index is
    replaced by the bundle's wheels, offline.

    Raises:
        UserError: not a bundle, or ``source`` is not in it (the message names what it holds).
    """
    directory = directory.resolve()
    manifest = read_manifest(directory)
    if manifest.find(source) is None:
        held = ", ".join(s.source for s in manifest.sources) or "nothing"
        raise UserError(
            f"{source} is not in the bundle at {directory} (it holds: {held}); "
            f"make one with: metaserver bundle {source} --output DIR"
        )
    store = settings.workspace_store
    store.mkdir(parents=True, exist_ok=True)
    shutil.copytree(directory / "workspaces", store, dirs_exist_ok=True)
    index = IndexSettings(
        url=settings.index.url,
        offline=True,
        find_links=str(directory / "wheels"),
        bundle=directory,
    )
    return settings.model_copy(update={"index": index})
