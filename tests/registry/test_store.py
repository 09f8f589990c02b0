"""The registry's versions, provenance, removal and migration, on real SQLite files."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from metaserver.exceptions import NotFoundError
from metaserver.registry.files import discard_files, sweep_home, unregister
from metaserver.registry.locks import ConversionLease
from metaserver.registry.records import ServerRecord, ToolRecord, split_ref
from metaserver.registry.search import search_tools
from metaserver.registry.store import SCHEMA_VERSION, Registry
from metaserver.settings import Settings


def _tool(name: str, digest: str | None = None) -> ToolRecord:
    return ToolRecord(
        name=name,
        description=f"The {name} tool.",
        target=f"pkg:{name}",
        input_schema={"type": "object", "properties": {}},
        definition_hash=digest or name,
    )


def _version(
    settings: Settings, name: str, token: str, commit: str, tools: list[ToolRecord]
) -> ServerRecord:
    """A record laid out as a conversion lays it out: <dir>/<name>-<token>, all three made."""
    dirs = [
        settings.servers_dir / f"{name}-{token}",
        settings.environments_dir / f"{name}-{token}",
        settings.workspaces_dir / f"{name}-{token}",
    ]
    for path in dirs:
        path.mkdir(parents=True, exist_ok=True)
        (path / "file").write_text(token)
    return ServerRecord(
        name=name,
        source="https://example.org/repo.git",
        commit=commit,
        output_dir=dirs[0],
        python_path=dirs[1] / "bin" / "python",
        venv=dirs[1],
        workspace=dirs[2],
        environment_lock="pkg==1.0",
        generator_version="test",
        report={"server": name, "status": "success", "changes": None},
        tools=tools,
    )


def test_a_newer_commit_adds_a_version_and_the_old_one_stays(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    first = registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("add")]))
    assert first.record.version_id == "aaaa"  # the directory's token
    assert first.previous is None and first.changes is None and first.replaced == []

    second = registry.register(
        _version(settings, "calc", "bbbb", "c2", [_tool("add", "new"), _tool("mean")])
    )
    assert second.previous == "aaaa" and second.replaced == []
    assert second.changes is not None
    assert (second.changes.added, second.changes.removed, second.changes.changed) == (
        ["mean"],
        [],
        ["add"],
    )
    # The stored report says what changed too.
    assert registry.get("calc").report["changes"]["previous_version"] == "aaaa"

    assert registry.get("calc").version_id == "bbbb"
    assert [t.name for t in registry.get("calc", "aaaa").tools] == ["add"]
    assert registry.resolve("calc@aaaa").commit == "c1"
    assert [r.version_id for r in registry.versions("calc")] == ["bbbb", "aaaa"]
    assert [r.version_id for r in registry.list_servers()] == ["bbbb"]
    [summary] = registry.summaries()
    assert [(v.version, v.commit, v.tools) for v in summary.versions] == [
        ("bbbb", "c2", 2),
        ("aaaa", "c1", 1),
    ]
    assert summary.listing()["latest"] == "bbbb"
    # Search sees the newest version only.
    hits = search_tools(registry, "tool")
    assert sorted(h.tool for h in hits) == ["add", "mean"]
    assert len(search_tools(registry, None)) == 2

    with pytest.raises(NotFoundError, match="no version 'zzzz'"):
        registry.get("calc", "zzzz")
    with pytest.raises(NotFoundError, match="no registered server"):
        registry.resolve("nobody@aaaa")
    assert split_ref("calc@aaaa") == ("calc", "aaaa") and split_ref("calc") == ("calc", None)


def test_tool_names_are_the_newest_versions_names_without_a_record_read(
    settings: Settings,
) -> None:
    registry = Registry(settings.registry_path)
    assert registry.tool_names() == {}  # no registry file yet
    registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("add")]))
    newest = registry.register(
        _version(settings, "calc", "bbbb", "c2", [_tool("mean"), _tool("add", "new")])
    ).record
    empty = registry.register(_version(settings, "bare", "cccc", "c3", [])).record
    assert registry.tool_names() == {
        "bare": (empty.created_at, []),
        "calc": (newest.created_at, ["add", "mean"]),  # in name order, as records list them
    }
    assert {name: when for name, (when, _) in registry.tool_names().items()} == (
        registry.registration_times()
    )


def test_the_same_commit_replaces_its_version_and_its_files(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("add")]))
    registry.register(_version(settings, "calc", "bbbb", "c2", [_tool("add")]))
    again = registry.register(_version(settings, "calc", "cccc", "c1", [_tool("add", "x")]))
    assert [r.version_id for r in again.replaced] == ["aaaa"]
    assert again.changes is not None and again.changes.previous_version == "bbbb"
    assert again.changes.changed == ["add"]
    # The same build keeps its version id (calc@aaaa stays valid), with the new files.
    assert again.record.version_id == "aaaa"
    assert [r.version_id for r in registry.versions("calc")] == ["aaaa", "bbbb"]
    assert registry.get("calc", "aaaa").output_dir == settings.servers_dir / "calc-cccc"
    assert registry.get("calc").version_id == "aaaa"

    deleted = discard_files(settings, again.replaced, registry)
    assert sorted(p.parent.name for p in deleted) == ["environments", "servers", "workspaces"]
    assert not (settings.servers_dir / "calc-aaaa").exists()
    assert (settings.servers_dir / "calc-bbbb").exists()
    assert (settings.servers_dir / "calc-cccc").exists()
    assert sweep_home(settings, registry) == []


def test_remove_one_version_then_all(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("old_tool")]))
    registry.register(_version(settings, "calc", "bbbb", "c2", [_tool("new_tool")]))
    registry.register(_version(settings, "other", "dddd", "c9", [_tool("else")]))
    assert [h.tool for h in search_tools(registry, "tool", server="calc")] == ["new_tool"]

    removed = unregister(settings, "calc@bbbb")
    assert [r.version_id for r in removed] == ["bbbb"]
    assert not (settings.servers_dir / "calc-bbbb").exists()
    # The older version is the newest now: resolved by name and re-indexed for search.
    assert registry.get("calc").version_id == "aaaa"
    assert [h.tool for h in search_tools(registry, "tool", server="calc")] == ["old_tool"]
    assert "new_tool" not in {h.tool for h in search_tools(registry, "new_tool")}

    with pytest.raises(NotFoundError):
        unregister(settings, "calc@bbbb")
    registry.register(_version(settings, "calc", "eeee", "c3", [_tool("third")]))
    removed = unregister(settings, "calc")
    assert [r.version_id for r in removed] == ["eeee", "aaaa"]
    assert not registry.exists("calc") and registry.versions("calc") == []
    assert [p.name for p in settings.servers_dir.iterdir()] == ["other-dddd"]
    assert [h.server for h in search_tools(registry, None)] == ["other"]
    with sqlite3.connect(settings.registry_path) as db:
        assert db.execute("SELECT count(*) FROM tools_fts").fetchone()[0] == 1
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []


def test_files_outside_the_home_and_shared_paths_are_never_deleted(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    shared = settings.servers_dir / "shared"
    shared.mkdir(parents=True)
    record = ServerRecord(
        name="fake",
        source="test",
        output_dir=shared,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),  # the project's own environment: never ours to delete
        generator_version="test",
    )
    first = registry.register(record)
    second = registry.register(record.model_copy(update={"created_at": record.created_at + 1}))
    assert [r.version_id for r in second.replaced] == [first.record.version_id]
    assert discard_files(settings, second.replaced, registry) == []  # still used
    assert shared.exists()
    unregister(settings, "fake")
    assert not shared.exists() and Path(sys.prefix).exists()


def test_unregistered_directories_of_any_server_are_swept(settings: Settings) -> None:
    # Issue 28: a killed batch's directories stayed until that name's next conversion.
    registry = Registry(settings.registry_path)
    registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("add")]))
    left = [
        settings.environments_dir / "calc-dead",
        settings.environments_dir / ".calc-dead.repair",
        settings.servers_dir / "calc-dead",
        settings.servers_dir / "calculator-dead",  # another server's leftover: swept too
        settings.environments_dir / ".calc-aaaa.repair",  # an ended conversion's scratch
    ]
    for path in left:
        path.mkdir(parents=True)
    mine = ConversionLease(settings, "mine")  # the registering conversion's own: kept
    (settings.servers_dir / "calc-mine").mkdir()
    (settings.servers_dir / "notes").mkdir()  # no version's entry: never touched
    swept = sweep_home(settings, registry)
    assert sorted(swept) == sorted(left)
    assert (settings.servers_dir / "calc-aaaa").exists()
    assert (settings.servers_dir / "calc-mine").exists()
    assert (settings.servers_dir / "notes").exists()
    mine.release()


def test_a_live_conversion_of_the_name_keeps_its_directories(settings: Settings) -> None:
    # Issue 28: a second conversion's sweep deleted the first one's directories mid-way.
    registry = Registry(settings.registry_path)
    registry.register(_version(settings, "calc", "aaaa", "c1", [_tool("add")]))
    lease = ConversionLease(settings, "busy")
    live = [settings.servers_dir / "calc-busy", settings.environments_dir / ".calc-busy.build"]
    for path in live:
        path.mkdir(parents=True)
    assert sweep_home(settings, registry) == []
    assert all(path.exists() for path in live)
    lease.release()  # the conversion ended without registering: its leftovers may go
    assert sorted(sweep_home(settings, registry)) == sorted(live)


# The schema of version 2, as it shipped: one row per server, tools keyed by server, and the
# FTS5 index kept by triggers.
_V2_SCHEMA = """
CREATE TABLE servers (name TEXT PRIMARY KEY, source TEXT NOT NULL, commit_sha TEXT,
    version TEXT, output_dir TEXT NOT NULL, python_path TEXT NOT NULL, venv TEXT NOT NULL,
    environment_lock TEXT NOT NULL DEFAULT '', generator_version TEXT NOT NULL,
    report TEXT NOT NULL DEFAULT '{}', created_at REAL NOT NULL);
CREATE TABLE tools (server TEXT NOT NULL REFERENCES servers(name) ON DELETE CASCADE,
    name TEXT NOT NULL, description TEXT NOT NULL, target TEXT NOT NULL,
    input_schema TEXT NOT NULL, definition_hash TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT 'null', PRIMARY KEY (server, name));
CREATE VIRTUAL TABLE tools_fts USING fts5(server UNINDEXED, tool UNINDEXED, words,
    description, parameters, origin, tokenize = 'porter unicode61');
CREATE TRIGGER tools_fts_insert AFTER INSERT ON tools BEGIN
    INSERT INTO tools_fts(rowid, server, tool, words, description, parameters, origin)
    SELECT new.rowid, new.server, new.name, replace(new.name, '_', ' '), new.description,
        '', new.server || ' ' || new.target;
END;
CREATE TRIGGER tools_fts_delete AFTER DELETE ON tools BEGIN
    DELETE FROM tools_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER tools_fts_update AFTER UPDATE ON tools BEGIN
    DELETE FROM tools_fts WHERE rowid = old.rowid;
END;
PRAGMA user_version=2;
"""


def test_a_version_2_registry_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(_V2_SCHEMA)
    for name, out in [("calc", "/h/servers/calc-1a2b3c4d"), ("odd", "/elsewhere/odd")]:
        db.execute(
            "INSERT INTO servers VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (name, f"src:{name}", "c0", "1.0", out, "/p", "/v", "lock", "0.1", "{}", 5.0),
        )
        for tool in ("fibonacci", "mean"):
            db.execute(
                "INSERT INTO tools VALUES (?,?,?,?,?,?,?)",
                (name, tool, f"{tool} numbers", f"m:{tool}", "{}", f"h-{tool}", "null"),
            )
    db.commit()
    db.close()

    registry = Registry(path)
    calc = registry.get("calc")
    assert (calc.version_id, calc.commit, calc.version) == ("1a2b3c4d", "c0", "1.0")
    assert calc.environment_lock == "lock" and calc.created_at == 5.0
    assert [(t.name, t.definition_hash) for t in calc.tools] == [
        ("fibonacci", "h-fibonacci"),
        ("mean", "h-mean"),
    ]
    assert registry.get("odd").version_id == "v1"
    hits = search_tools(registry, "fibonacci")
    assert sorted(h.server for h in hits) == ["calc", "odd"]
    # A new version of a migrated server works like any other.
    newer = calc.model_copy(update={"version_id": "", "commit": "c1", "created_at": 6.0})
    newer = newer.model_copy(update={"output_dir": Path("/h/servers/calc-99")})
    registration = registry.register(newer)
    assert registration.previous == "1a2b3c4d" and registration.record.version_id == "99"
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = {row[0] for row in check.execute("SELECT name FROM sqlite_master")}
        assert not {"legacy_servers", "legacy_tools"} & tables
        assert check.execute("SELECT count(*) FROM tools_fts").fetchone()[0] == 4
    assert json.loads(json.dumps(registry.summaries()[0].listing()))["latest"] == "99"


def test_a_version_4_registry_is_migrated_and_kept_private(settings: Settings) -> None:
    registry = Registry(settings.registry_path)
    registry.register(_version(settings, "calc", "aa", "c0", [_tool("mean")]))
    with sqlite3.connect(settings.registry_path) as db:
        # Version 4 had neither column.
        db.execute("ALTER TABLE versions DROP COLUMN endpoint")
        db.execute("ALTER TABLE versions DROP COLUMN kind")
        db.execute("PRAGMA user_version=4")
    settings.registry_path.chmod(0o644)

    calc = registry.get("calc")
    assert calc.kind == "converted" and calc.endpoint is None
    assert [s.listing()["kind"] for s in registry.summaries()] == ["converted"]
    with sqlite3.connect(settings.registry_path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    # Added servers' header values live in this file: only its owner may read it.
    assert settings.registry_path.stat().st_mode & 0o777 == 0o600
