"""Register stage: record a validated server in the registry, with its provenance.

Only tools that passed are registered (DESIGN decision 5); the row is written in one
transaction, so a crash leaves either the previous version or this one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from metaserver import GENERATOR_VERSION
from metaserver.contracts import ConversionReport, Environment, ToolEvidence, ToolSpec, Workspace
from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.settings import Settings


def register(
    settings: Settings,
    report: ConversionReport,
    workspace: Workspace,
    environment: Environment,
    server_dir: Path,
    specs: list[ToolSpec],
    evidence: list[ToolEvidence],
) -> ServerRecord:
    """Write the server and its passed tools into the registry, replacing an older version."""
    by_name = {e.name: e for e in evidence}
    tools = [
        ToolRecord(
            name=spec.name,
            description=spec.description,
            target=spec.target,
            input_schema=spec.input_schema,
            definition_hash=spec.definition_hash(),
            evidence=by_name[spec.name].evidence.model_dump(mode="json")  # type: ignore[union-attr]
            if by_name[spec.name].evidence
            else None,
        )
        for spec in specs
        if by_name.get(spec.name) and by_name[spec.name].status == "passed"
    ]
    record = ServerRecord(
        name=report.server,
        source=report.source,
        commit=workspace.commit,
        version=workspace.version,
        output_dir=server_dir,
        python_path=environment.python_path,
        venv=environment.venv,
        environment_lock=environment.lock,
        generator_version=GENERATOR_VERSION,
        report=report.model_dump(mode="json"),
        tools=tools,
    )
    Registry(settings.registry_path).register(record)
    return record


def remove_other_versions(settings: Settings, name: str, keep: str) -> None:
    """Delete the directories of earlier conversions of ``name`` (all but token ``keep``)."""
    for parent in (settings.workspaces_dir, settings.environments_dir, settings.servers_dir):
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            stem, _, token = path.name.rpartition("-")
            if stem == name and token != keep:
                shutil.rmtree(path, ignore_errors=True)
