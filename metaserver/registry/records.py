"""What the registry holds and answers, as values: tool and server records, version summaries,
what a registration did, and ``name@version`` references. :mod:`metaserver.registry.store`
reads and writes them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr

from metaserver.contracts import ToolChanges

__all__ = [
    "Endpoint",
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


ServerKind = Literal["converted", "added"]


class Endpoint(BaseModel):
    """How an added (existing, third-party) MCP server is reached.

    ``stdio``: ``command`` (an absolute executable, then its arguments, no shell) runs in the
    sandbox, with the host's network only when ``allow_network``. ``http``: streamable HTTP at
    ``url``, with ``headers``, whose values are secrets: kept in the registry database
    (mode 0600), never listed or put into an error.
    """

    transport: Literal["stdio", "http"]
    command: list[str] = Field(default_factory=list)
    allow_network: bool = False
    url: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)

    def stored(self) -> dict[str, Any]:
        """The endpoint as the registry stores it: with the header values in clear."""
        data = self.model_dump(mode="json", exclude={"headers"})
        data["headers"] = {k: v.get_secret_value() for k, v in self.headers.items()}
        return data

    def public(self) -> dict[str, Any]:
        """The endpoint as listings show it: header names, never their values."""
        data = self.model_dump(mode="json", exclude={"headers"})
        data["headers"] = sorted(self.headers)
        return data


class ServerRecord(BaseModel):
    """One registered version of a server, and how to start it.

    A converted server (``kind="converted"``) is a generated directory run with its
    environment's Python. An added server (``kind="added"``, ``metaserver add``) has an
    ``endpoint``; its ``output_dir`` (``servers/<name>-<version>``) holds only the ``work/``
    directory of its sandboxed child, and ``python_path`` and ``venv`` name that directory too.
    """

    name: str
    kind: ServerKind = "converted"
    endpoint: Endpoint | None = None
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
    kind: ServerKind = "converted"

    def listing(self) -> dict[str, Any]:
        """The server as ``list_servers`` and ``metaserver list --json`` show it: the newest
        version's facts at the top level, then every version, newest first."""
        newest = self.versions[0]
        return {
            "name": self.name,
            "kind": self.kind,
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
