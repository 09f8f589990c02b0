"""What the registry holds and answers, as values: tool and server records, version summaries,
what a registration did, and ``name@version`` references. :mod:`metaserver.registry.store`
reads and writes them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from metaserver.contracts import ToolChanges

__all__ = [
    "Registration",
    "ServerRecord",
    "ServerSummary",
    "ToolRecord",
    "VersionSummary",
    "split_ref",
    "tool_changes",
]


class ToolRecord(BaseModel):
    name: str
    description: str
    target: str
    input_schema: dict[str, Any]
    definition_hash: str
    evidence: dict[str, Any] | None = None
    requests: list[str] = Field(
        default_factory=list,
        description="Example requests this tool answers, for search; empty in a record not "
        "registered yet, which then gets deterministic ones (metaserver.registry.requests).",
    )


class ServerRecord(BaseModel):
    """One registered, validated version of a server, and how to start it."""

    name: str
    version_id: str = Field(
        default="",
        description="The version's id; empty in a record not registered yet, which then gets "
        "the token of its output directory (servers/<name>-<token>) or a fresh one.",
    )
    source: str
    commit: str | None = None
    version: str | None = Field(default=None, description="The source's own version (pypi).")
    output_dir: Path
    python_path: Path
    venv: Path
    workspace: Path | None = None
    environment_lock: str = ""
    generator_version: str
    report: dict[str, Any] = Field(default_factory=dict)
    created_at: float = Field(default_factory=time.time)
    tools: list[ToolRecord] = Field(default_factory=list)

    @property
    def ref(self) -> str:
        """``name@version`` (just the name for a record with no version id yet)."""
        return f"{self.name}@{self.version_id}" if self.version_id else self.name


class VersionSummary(BaseModel):
    """One version, as listed (no tools)."""

    version: str
    commit: str | None
    source_version: str | None
    created_at: float
    tools: int


class ServerSummary(BaseModel):
    """A server and its versions, newest first."""

    name: str
    source: str
    versions: list[VersionSummary]

    def listing(self) -> dict[str, Any]:
        """The server as ``list_servers`` and ``metaserver list --json`` show it: the newest
        version's facts at the top level, then every version, newest first."""
        newest = self.versions[0]
        return {
            "name": self.name,
            "source": self.source,
            "latest": newest.version,
            "commit": newest.commit,
            "tools": newest.tools,
            "created_at": newest.created_at,
            "versions": [v.model_dump(mode="json") for v in self.versions],
        }


class Registration(BaseModel):
    """What :meth:`Registry.register` did."""

    record: ServerRecord = Field(description="The registered version, with its id.")
    previous: str | None = Field(
        default=None, description="The version that was newest before, if any."
    )
    replaced: list[ServerRecord] = Field(
        default_factory=list,
        description="Versions of the same source and commit that this one replaced; their "
        "files are the caller's to delete (after this commit, never before).",
    )
    changes: ToolChanges | None = Field(
        default=None, description="Tool differences from the previous newest version."
    )


def split_ref(ref: str) -> tuple[str, str | None]:
    """``name@version`` -> (name, version); a bare name -> (name, None)."""
    name, at, version = ref.partition("@")
    return name, (version if at else None)


def tool_changes(
    previous_version: str, before: dict[str, str], after: dict[str, str]
) -> ToolChanges:
    """Added, removed and changed tools between two versions' {tool: definition hash}."""
    return ToolChanges(
        previous_version=previous_version,
        added=sorted(after.keys() - before.keys()),
        removed=sorted(before.keys() - after.keys()),
        changed=sorted(n for n in after.keys() & before.keys() if after[n] != before[n]),
    )
