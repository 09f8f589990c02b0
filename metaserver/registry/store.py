"""The SQLite registry: the source of truth for what is mounted (DESIGN decision 7).

Writes are single transactions, so a process killed mid-conversion leaves either the old
state or the new one, never a half-registered server. WAL mode lets the meta-server read while
a ``metaserver convert`` in another process writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from metaserver.exceptions import NotFoundError, RegistryError

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS servers (
    name TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    commit_sha TEXT,
    version TEXT,
    output_dir TEXT NOT NULL,
    python_path TEXT NOT NULL,
    venv TEXT NOT NULL,
    environment_lock TEXT NOT NULL DEFAULT '',
    generator_version TEXT NOT NULL,
    report TEXT NOT NULL DEFAULT '{}',
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tools (
    server TEXT NOT NULL REFERENCES servers(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    target TEXT NOT NULL,
    input_schema TEXT NOT NULL,
    definition_hash TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT 'null',
    PRIMARY KEY (server, name)
);
CREATE VIRTUAL TABLE IF NOT EXISTS tools_fts USING fts5(
    server UNINDEXED, tool UNINDEXED, words, description, parameters, origin,
    tokenize = 'porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS tools_fts_insert AFTER INSERT ON tools BEGIN
    {fts_insert_new}
END;
CREATE TRIGGER IF NOT EXISTS tools_fts_delete AFTER DELETE ON tools BEGIN
    DELETE FROM tools_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER IF NOT EXISTS tools_fts_update AFTER UPDATE ON tools BEGIN
    DELETE FROM tools_fts WHERE rowid = old.rowid;
    {fts_insert_new}
END;
"""

# The search index (registry/search.py) lives in the same file, kept by triggers: every write
# to ``tools`` (register, remove, the cascade from ``servers``) updates it in the same
# transaction, whichever process writes, so search never sees a half-registered server and
# never needs a rebuild. Columns: the tool name split into words, its description, the names
# and descriptions of its parameters, and where it comes from (server name, import target).
_FTS_ROW = """
SELECT {t}.rowid, {t}.server, {t}.name,
    replace(replace({t}.name, '_', ' '), '-', ' '),
    {t}.description,
    CASE WHEN json_valid({t}.input_schema) THEN coalesce((
        SELECT group_concat(
            p.key || ' ' || replace(p.key, '_', ' ') || ' '
            || coalesce(json_extract(p.value, '$.description'), ''), ' ')
        FROM json_each({t}.input_schema, '$.properties') AS p
        WHERE p.type = 'object'
    ), '') ELSE '' END,
    replace(replace({t}.server, '_', ' '), '-', ' ') || ' ' || {t}.target
"""
_FTS_INSERT = "INSERT INTO tools_fts(rowid, server, tool, words, description, parameters, origin)"
_SCHEMA = _SCHEMA.replace("{fts_insert_new}", _FTS_INSERT + _FTS_ROW.format(t="new") + ";")
_FTS_BACKFILL = _FTS_INSERT + _FTS_ROW.format(t="tools") + " FROM tools"


class ToolRecord(BaseModel):
    name: str
    description: str
    target: str
    input_schema: dict[str, Any]
    definition_hash: str
    evidence: dict[str, Any] | None = None


class ServerRecord(BaseModel):
    """A registered, validated server and how to start it."""

    name: str
    source: str
    commit: str | None = None
    version: str | None = None
    output_dir: Path
    python_path: Path
    venv: Path
    environment_lock: str = ""
    generator_version: str
    report: dict[str, Any] = Field(default_factory=dict)
    created_at: float = Field(default_factory=time.time)
    tools: list[ToolRecord] = Field(default_factory=list)

    @property
    def server_script(self) -> Path:
        return self.output_dir / "server.py"


class Registry:
    """Registered servers and their tools, stored in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise RegistryError(f"cannot open the registry at {self.path}: {exc}") from exc
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA foreign_keys=ON")
            connection.executescript(_SCHEMA)
            _migrate(connection)
            yield connection
        except sqlite3.Error as exc:
            raise RegistryError(f"registry error: {exc}") from exc
        finally:
            connection.close()

    def register(self, record: ServerRecord) -> None:
        """Insert or replace a server and all its tools, atomically."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM servers WHERE name = ?", (record.name,))
                db.execute(
                    "INSERT INTO servers VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        record.name,
                        record.source,
                        record.commit,
                        record.version,
                        str(record.output_dir),
                        str(record.python_path),
                        str(record.venv),
                        record.environment_lock,
                        record.generator_version,
                        json.dumps(record.report),
                        record.created_at,
                    ),
                )
                db.executemany(
                    "INSERT INTO tools VALUES (?,?,?,?,?,?,?)",
                    [
                        (
                            record.name,
                            tool.name,
                            tool.description,
                            tool.target,
                            json.dumps(tool.input_schema),
                            tool.definition_hash,
                            json.dumps(tool.evidence),
                        )
                        for tool in record.tools
                    ],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def get(self, name: str) -> ServerRecord:
        """The server called ``name``; :class:`NotFoundError` when there is none."""
        for record in self._select("WHERE name = ?", (name,)):
            return record
        raise NotFoundError(f"no registered server named {name!r}")

    def list_servers(self) -> list[ServerRecord]:
        return self._select("ORDER BY name", ())

    def registration_times(self) -> dict[str, float]:
        """{server: registered at}: a cheap way to see what changed since the last look."""
        if not self.path.exists():
            return {}
        with self._connect() as db:
            rows = db.execute("SELECT name, created_at FROM servers").fetchall()
        return {name: created_at for name, created_at in rows}

    def exists(self, name: str) -> bool:
        if not self.path.exists():
            return False
        with self._connect() as db:
            row = db.execute("SELECT 1 FROM servers WHERE name = ?", (name,)).fetchone()
        return row is not None

    def remove(self, name: str) -> ServerRecord:
        """Unregister ``name`` and return what it was."""
        record = self.get(name)
        with self._connect() as db:
            db.execute("DELETE FROM servers WHERE name = ?", (name,))
        return record

    def _select(self, where: str, args: tuple[Any, ...]) -> list[ServerRecord]:
        if not self.path.exists():
            return []
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            servers = db.execute(f"SELECT * FROM servers {where}", args).fetchall()  # noqa: S608
            records = []
            for row in servers:
                tools = db.execute(
                    "SELECT * FROM tools WHERE server = ? ORDER BY name", (row["name"],)
                ).fetchall()
                records.append(_record_from_rows(row, tools))
        return records


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an older registry file up to :data:`SCHEMA_VERSION` (v1 had no search index)."""
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        # Re-checked under the write lock: another process may have migrated meanwhile.
        if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            db.execute("DELETE FROM tools_fts")
            db.execute(_FTS_BACKFILL)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _record_from_rows(row: sqlite3.Row, tools: list[sqlite3.Row]) -> ServerRecord:
    return ServerRecord(
        name=row["name"],
        source=row["source"],
        commit=row["commit_sha"],
        version=row["version"],
        output_dir=Path(row["output_dir"]),
        python_path=Path(row["python_path"]),
        venv=Path(row["venv"]),
        environment_lock=row["environment_lock"],
        generator_version=row["generator_version"],
        report=json.loads(row["report"]),
        created_at=row["created_at"],
        tools=[
            ToolRecord(
                name=tool["name"],
                description=tool["description"],
                target=tool["target"],
                input_schema=json.loads(tool["input_schema"]),
                definition_hash=tool["definition_hash"],
                evidence=json.loads(tool["evidence"]),
            )
            for tool in tools
        ],
    )
