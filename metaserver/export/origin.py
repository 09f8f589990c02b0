"""The registered version an export starts from: its generated server, the source tree it
was converted from, and whether that tree is a git commit a change can apply on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metaserver.contracts import ToolSpec
from metaserver.exceptions import UserError
from metaserver.packaging_metadata import pyproject_table, read_setup_cfg
from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry
from metaserver.settings import Settings

__all__ = ["Origin", "load_origin", "require_commit"]


@dataclass(frozen=True)
class Origin:
    """What an export reads: the record, its server directory and its source tree."""

    record: ServerRecord
    server_dir: Path
    tree: Path
    specs: list[ToolSpec]

    @property
    def commit(self) -> str | None:
        return self.record.commit

    @property
    def date(self) -> int:
        """The conversion's registration time (seconds): every date an export writes, so
        that a second export of the same version is the same bytes."""
        return int(self.record.created_at)

    @property
    def distribution(self) -> str:
        """The project's name as its static metadata declares it (else the server's)."""
        project = pyproject_table(self.tree, "project")
        if project is not None and isinstance(project.get("name"), str):
            return str(project["name"])
        setup_cfg = read_setup_cfg(self.tree)
        if setup_cfg is not None and setup_cfg.has_option("metadata", "name"):
            return setup_cfg.get("metadata", "name").strip() or self.record.name
        return self.record.name

    @property
    def report(self) -> dict[str, Any]:
        return self.record.report


def load_origin(settings: Settings, ref: str) -> Origin:
    """The converted version ``ref`` (``NAME`` or ``NAME@VERSION``), checked for export.

    Raises:
        NotFoundError: no such server or version.
        UserError: an added server (nothing was generated), or its files are gone.
    """
    record = Registry(settings.registry_path).resolve(ref)
    if record.kind != "converted":
        raise UserError(f"{record.ref} is an added server: metaserver generated nothing to export")
    tree = record.workspace
    if tree is None or not tree.is_dir():
        raise UserError(f"{record.ref}: the source tree it was converted from is gone")
    server_dir = record.output_dir
    if not (server_dir / "server.py").is_file() or not (server_dir / "tools.json").is_file():
        raise UserError(f"{record.ref}: its generated server's files are gone")
    tools = json.loads((server_dir / "tools.json").read_text(encoding="utf-8"))
    specs = [ToolSpec.model_validate(tool) for tool in tools.get("tools", [])]
    return Origin(record=record, server_dir=server_dir, tree=tree, specs=specs)


def require_commit(origin: Origin, what: str) -> str:
    """The commit ``origin`` was converted from, or a UserError saying why ``what`` (a patch,
    a branch) needs one and what to use instead."""
    if origin.commit is None:
        raise UserError(
            f"{origin.record.ref} was converted from {origin.record.source!r}, which is not a "
            f"git repository (a source distribution, an archive or a plain directory): there "
            f"is no commit for {what} to apply on; export it with --dir DIR instead"
        )
    return origin.commit
