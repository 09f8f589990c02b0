"""Register stage: record a validated server version in the registry, with its provenance.

Only tools that passed are registered (ARCHITECTURE.md decision 5). The version's rows are written
in one transaction, so a crash leaves either the previous state or this version, complete. Files are
deleted only afterwards: those of a version this one replaced (same source and commit), and those
that killed conversions of any server, or removals while a child ran, left behind.
"""

from __future__ import annotations

import logging
from pathlib import Path

from metaserver import GENERATOR_VERSION
from metaserver.contracts import ConversionReport, Environment, ToolEvidence, ToolSpec, Workspace
from metaserver.fs import tree_bytes
from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.registry.files import discard_files, sweep_home
from metaserver.registry.locks import server_lock
from metaserver.registry.records import Registration
from metaserver.settings import Settings

logger = logging.getLogger(__name__)


def register(
    settings: Settings,
    report: ConversionReport,
    workspace: Workspace,
    environment: Environment,
    server_dir: Path,
    specs: list[ToolSpec],
    evidence: list[ToolEvidence],
) -> Registration:
    """Register the server's passed tools as its newest version, and say what changed.

    The version id is that of the registered version of the same source and commit, which
    this one replaces (so ``SERVER@VERSION`` stays valid), else the token of ``server_dir``
    (``servers/<name>-<token>``). Sets
    ``report.changes`` (the tool differences from the previous newest version; None for a
    first conversion) and logs them.

    Returns:
        What the registry did: the record, the previous newest version, what was replaced.
    """
    # Disk the version holds (its server and environment; inodes shared with other
    # environments through the shared-file store count here too).
    report.bytes = tree_bytes(server_dir) + tree_bytes(environment.venv)
    by_name = {e.name: e for e in evidence}
    tools = []
    for spec in specs:
        seen = by_name.get(spec.name)
        if seen is None or seen.status != "passed":
            continue
        tools.append(
            ToolRecord(
                name=spec.name,
                description=spec.description,
                target=spec.target,
                input_schema=spec.input_schema,
                definition_hash=spec.definition_hash(),
                evidence=seen.evidence.model_dump(mode="json") if seen.evidence else None,
                requests=spec.requests,
            )
        )
    record = ServerRecord(
        name=report.server,
        source=report.source,
        commit=workspace.commit,
        version=workspace.version,
        output_dir=server_dir,
        python_path=environment.python_path,
        venv=environment.venv,
        workspace=workspace.path,
        environment_lock=environment.lock,
        generator_version=GENERATOR_VERSION,
        report=report.model_dump(mode="json"),
        tools=tools,
    )
    registry = Registry(settings.registry_path)
    # Under the server's lock, shared by every process of the home: no other registration
    # or removal of this server changes the rows between the write and the cleanup below.
    with server_lock(settings, record.name):
        registration = registry.register(record)
        report.changes = registration.changes
        _log_changes(registration)
        # Only now that the new version is committed: a kill before this line leaves
        # directories that no row names (swept by the next registration), never a row
        # without its files.
        discard_files(settings, registration.replaced, registry)
    # Outside the lock: what any server's killed or removed versions left, in any process.
    for path in sweep_home(settings, registry):
        logger.info("removed %s, which no registered version uses", path)
    return registration


def _log_changes(registration: Registration) -> None:
    record, changes = registration.record, registration.changes
    if registration.replaced:
        logger.info(
            "server %s: version %s replaces %s (same source and commit)",
            record.name,
            record.version_id,
            ", ".join(r.version_id for r in registration.replaced),
        )
    if changes is None:
        logger.info("server %s: first version %s", record.name, record.version_id)
        return
    if changes.added or changes.removed or changes.changed:
        logger.warning(
            "server %s: version %s changes tools against version %s: added %s, removed %s, "
            "changed definitions %s",
            record.name,
            record.version_id,
            changes.previous_version,
            changes.added or "none",
            changes.removed or "none",
            changes.changed or "none",
        )
    else:
        logger.info(
            "server %s: version %s has the same tool definitions as version %s",
            record.name,
            record.version_id,
            changes.previous_version,
        )
