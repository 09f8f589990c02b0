"""The SQLite registry: the source of truth for what is mounted (ARCHITECTURE.md decision 7).

Every server has one or more *versions*, one per successful conversion: converting a newer
commit adds a version, and the older one stays callable (as ``name@version``) until removed; a
re-conversion of the same commit (or source version) replaces that version and keeps its id.
A bare name means the newest version. The schema is in :mod:`metaserver.registry.schema`.

Writes are single transactions, so a process killed mid-conversion leaves either the old
state or the new one, never a half-registered server. Files are never touched here: callers
delete a version's directories only after its rows are gone (:mod:`metaserver.registry.files`),
so no row ever points at a missing directory. WAL mode lets the meta-server read while a
``metaserver convert`` in another process writes.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from metaserver.exceptions import NameTakenError, NotFoundError, RegistryError
from metaserver.registry.records import (
    Endpoint,
    Registration,
    ServerRecord,
    ServerSummary,
    ToolRecord,
    VersionSummary,
    split_ref,
    tool_changes,
)
from metaserver.registry.requests import clean_requests, template_requests
from metaserver.registry.schema import (
    SCHEMA_VERSION,
    VERSION_COLUMNS,
    ensure_schema,
    identity_of,
)

__all__ = ["SCHEMA_VERSION", "Registry"]

_VERSION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class Registry:
    """Registered servers, their versions and tools, stored in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _keep_private(self.path)
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise RegistryError(f"cannot open the registry at {self.path}: {exc}") from exc
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            ensure_schema(connection)
            yield connection
        except sqlite3.Error as exc:
            raise RegistryError(f"registry error: {exc}") from exc
        finally:
            connection.close()

    def connect(self) -> AbstractContextManager[sqlite3.Connection]:
        """A connection to the registry's file (created private, schema ensured, SQLite errors
        as RegistryError), for the tables another package keeps in it (metaserver.auth)."""
        return self._connect()

    def register(self, record: ServerRecord, new_server: bool = False) -> Registration:
        """Add ``record`` as the newest version of its server, atomically.

        With ``new_server`` (an added server), a server of that name must not exist yet: the
        check is made under the write lock, so two adds of one name cannot both succeed.

        A registered version of the same source and commit (or source version, see
        :func:`~metaserver.registry.schema.identity_of`), or with the same version id, is
        replaced. The tool changes against the version that was newest are computed under the
        same write lock and, when ``record.report`` is a conversion report, stored in it.

        Returns:
            The registered record (with its version id), what was replaced, and the changes.
        """
        if record.version_id and (
            not set(record.version_id) <= _VERSION_CHARS or len(record.version_id) > 64
        ):
            raise RegistryError(f"invalid version id {record.version_id!r}")
        identity = identity_of(record.source, record.commit, record.version)
        hashes = {tool.name: tool.definition_hash for tool in record.tools}
        # Lazily: the model loads on the first registration (or search) of the process. The
        # vectors are computed before the write lock is taken, so no writer waits for them.
        from metaserver.registry.embeddings import MODEL_ID, tool_vectors

        record = _with_requests(record)
        vectors = tool_vectors([(t.name, t.description, t.requests) for t in record.tools])
        model = MODEL_ID if vectors is not None else None
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            db.execute("BEGIN IMMEDIATE")
            try:
                # A re-conversion of a registered build keeps its version id, so that
                # ``name@version`` references stay valid (issue 28); decided under the lock.
                version = (
                    record.version_id
                    or _same_build(db, record.name, identity)
                    or _version_for(record)
                )
                previous = _latest(db, record.name)
                if new_server and previous is not None:
                    raise NameTakenError(f"a server named {record.name!r} is registered already")
                kind = _kind(db, record.name, previous)
                if kind is not None and kind != record.kind:
                    # Checked again here, under the write lock: a conversion and an add of
                    # one name may race past the pipeline's early check.
                    raise NameTakenError(
                        f"a server named {record.name!r} is registered already, as "
                        f"{'an' if kind == 'added' else 'a'} {kind} server"
                    )
                changes = (
                    tool_changes(previous, _hashes(db, record.name, previous), hashes)
                    if previous is not None
                    else None
                )
                report = dict(record.report)
                if report:
                    report["changes"] = changes.model_dump() if changes else None
                stored = record.model_copy(update={"version_id": version, "report": report})
                replaced = [
                    _load(db, row)
                    for row in db.execute(
                        "SELECT * FROM versions WHERE server = ? AND (identity = ? OR version = ?)",
                        (record.name, identity, version),
                    ).fetchall()
                ]
                for old in replaced:
                    db.execute(
                        "DELETE FROM versions WHERE server = ? AND version = ?",
                        (old.name, old.version_id),
                    )
                # Latest first, so that the tools inserted below are indexed as they come.
                db.execute(
                    "INSERT INTO servers (name, latest, created_at) VALUES (?, ?, ?)"
                    " ON CONFLICT(name) DO UPDATE SET latest = excluded.latest",
                    (record.name, version, record.created_at),
                )
                _insert_version(db, stored, identity, vectors, model)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return Registration(record=stored, previous=previous, replaced=replaced, changes=changes)

    def get(self, name: str, version: str | None = None) -> ServerRecord:
        """A version of ``name`` (the newest when ``version`` is None).

        Raises:
            NotFoundError: no such server, or no such version of it.
        """
        if self.path.exists():
            with self._connect() as db:
                db.row_factory = sqlite3.Row
                row = db.execute(
                    "SELECT v.* FROM versions AS v JOIN servers AS s ON s.name = v.server"
                    " WHERE v.server = ? AND v.version = coalesce(?, s.latest)",
                    (name, version),
                ).fetchone()
                if row is not None:
                    return _load(db, row)
        if version is not None and self.exists(name):
            raise NotFoundError(f"server {name!r} has no version {version!r}")
        raise NotFoundError(f"no registered server named {name!r}")

    def resolve(self, ref: str) -> ServerRecord:
        """The version ``ref`` names: ``name`` (the newest) or ``name@version``."""
        return self.get(*split_ref(ref))

    def list_servers(self) -> list[ServerRecord]:
        """The newest version of every server, by name."""
        return self._select(
            "JOIN servers AS s ON s.name = v.server AND s.latest = v.version ORDER BY v.server"
        )

    def versions(self, name: str) -> list[ServerRecord]:
        """Every version of ``name``, newest first (empty when there is no such server)."""
        return self._select(
            "WHERE v.server = ? ORDER BY v.created_at DESC, v.version DESC", (name,)
        )

    def summaries(self) -> list[ServerSummary]:
        """Every server with its versions (newest first) and their tool counts; one query."""
        if not self.path.exists():
            return []
        with self._connect() as db:
            rows = db.execute(
                "SELECT v.server, v.source, v.version, v.commit_sha, v.source_version,"
                " v.created_at, v.kind, (SELECT count(*) FROM tools AS t"
                "   WHERE t.server = v.server AND t.version = v.version)"
                " FROM versions AS v JOIN servers AS s ON s.name = v.server"
                " ORDER BY v.server, v.version = s.latest DESC, v.created_at DESC, v.version DESC"
            ).fetchall()
        summaries: dict[str, ServerSummary] = {}
        for server, source, version, commit, source_version, created_at, kind, count in rows:
            summary = summaries.setdefault(
                server, ServerSummary(name=server, source=source, versions=[], kind=kind)
            )
            summary.versions.append(
                VersionSummary(
                    version=version,
                    commit=commit,
                    source_version=source_version,
                    created_at=created_at,
                    tools=count,
                )
            )
        return list(summaries.values())

    def registration_times(self) -> dict[str, float]:
        """{server: when its newest version was registered}: what changed since the last look."""
        if not self.path.exists():
            return {}
        with self._connect() as db:
            rows = db.execute(
                "SELECT s.name, v.created_at FROM servers AS s"
                " JOIN versions AS v ON v.server = s.name AND v.version = s.latest"
            ).fetchall()
        return {name: created_at for name, created_at in rows}

    def tool_names(self) -> dict[str, tuple[float, list[str]]]:
        """{server: (when its newest version was registered, its tools' names in order)}: one
        query, no record read (what a start mounts direct tools from)."""
        if not self.path.exists():
            return {}
        with self._connect() as db:
            rows = db.execute(
                "SELECT s.name, v.created_at, t.name FROM servers AS s"
                " JOIN versions AS v ON v.server = s.name AND v.version = s.latest"
                " LEFT JOIN tools AS t ON t.server = v.server AND t.version = v.version"
                " ORDER BY s.name, t.name"
            ).fetchall()
        found: dict[str, tuple[float, list[str]]] = {}
        for server, created_at, tool in rows:
            names = found.setdefault(server, (created_at, []))[1]
            if tool is not None:
                names.append(tool)
        return found

    def exists(self, name: str) -> bool:
        if not self.path.exists():
            return False
        with self._connect() as db:
            row = db.execute("SELECT 1 FROM servers WHERE name = ?", (name,)).fetchone()
        return row is not None

    def paths(self) -> set[Path]:
        """Every path a registered version names (server, environment, workspace): one
        query, without loading the records (a sweep's and a child start's check)."""
        if not self.path.exists():
            return set()
        with self._connect() as db:
            rows = db.execute("SELECT output_dir, venv, workspace FROM versions").fetchall()
        return {Path(value) for row in rows for value in row if value}

    def remove(self, name: str, version: str | None = None) -> list[ServerRecord]:
        """Unregister every version of ``name``, or only ``version``; atomically.

        Removing the newest version makes the next newest the one a bare name means; removing
        the last one removes the server.

        Returns:
            The versions removed, newest first. Their files are the caller's to delete.

        Raises:
            NotFoundError: no such server, or no such version of it.
        """
        if not self.path.exists():
            raise NotFoundError(f"no registered server named {name!r}")
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            db.execute("BEGIN IMMEDIATE")
            try:
                rows = db.execute(
                    "SELECT * FROM versions WHERE server = ? AND (? IS NULL OR version = ?)"
                    " ORDER BY created_at DESC, version DESC",
                    (name, version, version),
                ).fetchall()
                removed = [_load(db, row) for row in rows]
                if removed:
                    _delete_versions(db, name, [r.version_id for r in removed])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        if not removed:
            if version is not None and self.exists(name):
                raise NotFoundError(f"server {name!r} has no version {version!r}")
            raise NotFoundError(f"no registered server named {name!r}")
        return removed

    def _select(self, where: str, args: tuple[Any, ...] = ()) -> list[ServerRecord]:
        if not self.path.exists():
            return []
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            rows = db.execute(f"SELECT v.* FROM versions AS v {where}", args).fetchall()  # noqa: S608
            return [_load(db, row) for row in rows]


def _keep_private(path: Path) -> None:
    """Make the database and its journal files readable by their owner only (0600).

    The registry holds added servers' header values (secrets). SQLite creates the ``-wal``
    and ``-shm`` files with the database file's mode, so a private database keeps them private.
    """
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)
        except PermissionError:
            pass  # another user's registry, opened to read: its owner keeps it
        except FileNotFoundError:
            if file == path:
                # Created private and empty, before SQLite opens it (an empty file is a new
                # database to SQLite).
                file.touch(mode=0o600, exist_ok=True)


def _version_for(record: ServerRecord) -> str:
    # A conversion's directories are <name>-<token>: the token names the version, so that
    # a version's files are found from its id alone.
    stem, _, token = record.output_dir.name.rpartition("-")
    if stem == record.name and token:
        return token
    return secrets.token_hex(4)


def _same_build(db: sqlite3.Connection, name: str, identity: str) -> str | None:
    """The version id of ``name``'s registered version built from ``identity``, if any."""
    row = db.execute(
        "SELECT version FROM versions WHERE server = ? AND identity = ? AND kind = 'converted'"
        " ORDER BY created_at DESC LIMIT 1",
        (name, identity),
    ).fetchone()
    return None if row is None else str(row[0])


def _latest(db: sqlite3.Connection, name: str) -> str | None:
    row = db.execute("SELECT latest FROM servers WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def _kind(db: sqlite3.Connection, name: str, version: str | None) -> str | None:
    if version is None:
        return None
    row = db.execute(
        "SELECT kind FROM versions WHERE server = ? AND version = ?", (name, version)
    ).fetchone()
    return None if row is None else str(row[0])


def _hashes(db: sqlite3.Connection, name: str, version: str) -> dict[str, str]:
    rows = db.execute(
        "SELECT name, definition_hash FROM tools WHERE server = ? AND version = ?",
        (name, version),
    ).fetchall()
    return {tool: digest for tool, digest in rows}


def _delete_versions(db: sqlite3.Connection, name: str, versions: list[str]) -> None:
    for version in versions:
        db.execute("DELETE FROM versions WHERE server = ? AND version = ?", (name, version))
    newest = db.execute(
        "SELECT version FROM versions WHERE server = ? ORDER BY created_at DESC, version DESC",
        (name,),
    ).fetchone()
    if newest is None:
        db.execute("DELETE FROM servers WHERE name = ?", (name,))
    else:
        # A no-op unless the latest went; the trigger then re-indexes the new latest's tools.
        db.execute(
            "UPDATE servers SET latest = ? WHERE name = ? AND latest IS NOT ?",
            (newest[0], name, newest[0]),
        )


def _with_requests(record: ServerRecord) -> ServerRecord:
    """``record`` with every tool's example requests cleaned, and written from its name,
    parameters and server where it has none."""
    tools = [
        tool.model_copy(
            update={
                "requests": clean_requests(tool.requests)
                or template_requests(record.name, tool.name, tool.input_schema)
            }
        )
        for tool in record.tools
    ]
    return record.model_copy(update={"tools": tools})


def _insert_version(
    db: sqlite3.Connection,
    record: ServerRecord,
    identity: str,
    vectors: list[bytes] | None,
    model: str | None,
) -> None:
    db.execute(
        f"INSERT INTO versions ({VERSION_COLUMNS}, kind, endpoint)"  # noqa: S608 - a constant
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            record.name,
            record.version_id,
            record.source,
            record.commit,
            record.version,
            identity,
            str(record.output_dir),
            str(record.python_path),
            str(record.venv),
            None if record.workspace is None else str(record.workspace),
            record.environment_lock,
            record.generator_version,
            json.dumps(record.report),
            record.created_at,
            record.kind,
            None if record.endpoint is None else json.dumps(record.endpoint.stored()),
        ),
    )
    db.executemany(
        "INSERT INTO tools (server, version, name, description, target, input_schema,"
        " definition_hash, evidence, requests, embedding, embedding_model)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                record.name,
                record.version_id,
                tool.name,
                tool.description,
                tool.target,
                json.dumps(tool.input_schema),
                tool.definition_hash,
                json.dumps(tool.evidence),
                json.dumps(tool.requests),
                None if vectors is None else vectors[index],
                model,
            )
            for index, tool in enumerate(record.tools)
        ],
    )


def _load(db: sqlite3.Connection, row: sqlite3.Row) -> ServerRecord:
    tools = db.execute(
        "SELECT * FROM tools WHERE server = ? AND version = ? ORDER BY name",
        (row["server"], row["version"]),
    ).fetchall()
    endpoint = row["endpoint"]
    return ServerRecord(
        name=row["server"],
        kind=row["kind"],
        endpoint=None if endpoint is None else Endpoint.model_validate_json(endpoint),
        version_id=row["version"],
        source=row["source"],
        commit=row["commit_sha"],
        version=row["source_version"],
        output_dir=Path(row["output_dir"]),
        python_path=Path(row["python_path"]),
        venv=Path(row["venv"]),
        workspace=Path(row["workspace"]) if row["workspace"] else None,
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
                requests=json.loads(tool["requests"]),
            )
            for tool in tools
        ],
    )
