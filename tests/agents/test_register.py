"""The register stage: versions, provenance (tool changes) and file clean-up, on real SQLite."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.register import register
from metaserver.contracts import (
    ConversionReport,
    Environment,
    Evidence,
    Parameter,
    Source,
    ToolEvidence,
    ToolSpec,
    Workspace,
)
from metaserver.registry import Registry
from metaserver.settings import Settings


def _convert(
    settings: Settings, token: str, commit: str, specs: list[ToolSpec]
) -> ConversionReport:
    """What the pipeline hands the register stage, laid out as the pipeline lays it out."""
    dirs = [
        parent / f"calc-{token}"
        for parent in (settings.servers_dir, settings.environments_dir, settings.workspaces_dir)
    ]
    for path in dirs:
        path.mkdir(parents=True)
    source = Source(kind="git", location="https://example.org/c.git", original="c")
    workspace = Workspace(source=source, path=dirs[2], commit=commit, version="1.0")
    environment = Environment(
        ok=True,
        strategy="source",
        python="3.11",
        python_path=dirs[1] / "bin" / "python",
        venv=dirs[1],
        seconds=0.0,
        lock="calc==1.0",
    )
    evidence = [
        ToolEvidence(name=s.name, target=s.target, status="passed", evidence=Evidence(arguments={}))
        for s in specs
    ]
    evidence.append(ToolEvidence(name="broken", target="calc:broken", status="dropped"))
    report = ConversionReport(server="calc", source="c", commit=commit, status="success")
    register(settings, report, workspace, environment, dirs[0], specs, evidence)
    return report


def _spec(name: str, *params: str) -> ToolSpec:
    parameters = [
        Parameter(name=p, kind="positional_or_keyword", json_schema={"type": "integer"})
        for p in params
    ]
    return ToolSpec(name=name, description=name, target=f"calc:{name}", parameters=parameters)


def test_versions_record_provenance_and_say_what_changed(settings: Settings) -> None:
    first = _convert(settings, "aaaa", "c1", [_spec("add", "a", "b"), _spec("mean", "v")])
    assert first.changes is None
    registry = Registry(settings.registry_path)
    record = registry.get("calc")
    assert (record.version_id, record.commit, record.version) == ("aaaa", "c1", "1.0")
    assert record.environment_lock == "calc==1.0" and record.generator_version
    assert record.workspace == settings.workspaces_dir / "calc-aaaa"
    assert [t.name for t in record.tools] == ["add", "mean"]  # only the passed tools

    second = _convert(settings, "bbbb", "c2", [_spec("add", "a", "b", "c"), _spec("neg", "x")])
    assert second.changes is not None
    assert second.changes.model_dump() == {
        "previous_version": "aaaa",
        "added": ["neg"],
        "removed": ["mean"],
        "changed": ["add"],
    }
    assert registry.get("calc").report["changes"] == second.changes.model_dump()
    assert [r.version_id for r in registry.versions("calc")] == ["bbbb", "aaaa"]

    # The same commit again replaces its version, keeping its id (calc@bbbb stays valid,
    # issue 28), and that version's old files go.
    third = _convert(settings, "cccc", "c2", [_spec("add", "a", "b", "c"), _spec("neg", "x")])
    assert third.changes is not None and third.changes.previous_version == "bbbb"
    assert (third.changes.added, third.changes.removed, third.changes.changed) == ([], [], [])
    assert [r.version_id for r in registry.versions("calc")] == ["bbbb", "aaaa"]
    assert registry.get("calc", "bbbb").output_dir == settings.servers_dir / "calc-cccc"
    for parent in (settings.servers_dir, settings.environments_dir, settings.workspaces_dir):
        assert sorted(p.name for p in parent.iterdir()) == ["calc-aaaa", "calc-cccc"]


def test_leftovers_of_killed_conversions_of_the_name_are_swept(settings: Settings) -> None:
    left = settings.environments_dir / "calc-dead"
    left.mkdir(parents=True)
    _convert(settings, "aaaa", "c1", [_spec("add", "a")])
    assert not left.exists()
    assert Path(settings.servers_dir / "calc-aaaa").is_dir()
