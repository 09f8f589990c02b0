"""What a bundle holds: ``manifest.json`` beside ``workspaces/`` and ``wheels/``."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from metaserver.exceptions import UserError

FORMAT = 1
MANIFEST = "manifest.json"


class BundledSource(BaseModel):
    source: str = Field(
        description="The SOURCE exactly as given to `metaserver bundle`; for a paper, the "
        "repository it named (its link, or --repo-url as given)."
    )
    paper: str | None = Field(
        default=None, description="The paper SOURCE that named the repository, if one did."
    )
    fingerprint: str = Field(
        # A manifest is read from a directory someone handed over: the key names a path in
        # the workspace cache, so it may be nothing but a kind and a hex digest.
        pattern=r"^[a-z]+:[0-9a-f]{16,64}$",
        description="Its fetched tree's key in workspaces/ (<kind>:<digest>).",
    )
    version: str | None = None
    commit: str | None = None
    requirements: list[str] = Field(
        default_factory=list, description="What its environment installed (name==version)."
    )


class Manifest(BaseModel):
    format: int = FORMAT
    python: str = Field(description="The X.Y the wheels were chosen for.")
    metaserver: str = Field(description="The metaserver version that made the bundle.")
    sources: list[BundledSource] = Field(default_factory=list)
    distributions: list[str] = Field(default_factory=list, description="Files under wheels/.")

    def find(self, source: str) -> BundledSource | None:
        return next((s for s in self.sources if s.source == source), None)


def read_manifest(directory: Path) -> Manifest:
    """The manifest of the bundle at ``directory``.

    Raises:
        UserError: not a bundle, or one of another format.
    """
    path = directory / MANIFEST
    try:
        manifest = Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise UserError(f"{directory} is not a metaserver bundle ({MANIFEST}: {exc})") from None
    if manifest.format != FORMAT:
        raise UserError(f"{directory} is a bundle of format {manifest.format}, not {FORMAT}")
    for part in ("workspaces", "wheels"):
        if not (directory / part).is_dir():
            raise UserError(f"{directory} is not a whole bundle: {part}/ is missing")
    return manifest


def write_manifest(directory: Path, manifest: Manifest) -> None:
    (directory / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
