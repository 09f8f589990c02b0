"""The registry's SQLite schema, and the migration from earlier schemas.

Version 6 (this one) keeps every version of a server::

    servers   name -> latest (the version a bare name resolves to), created_at (first seen)
    versions  (server, version) -> source, commit, source version, identity, paths,
              environment lock, generator version, report, created_at, kind (``converted``
              or ``added``) and, for an added server, its endpoint (JSON: a sandboxed
              command, or a URL and headers; header values are secrets, which is why the
              database file is kept mode 0600, :mod:`metaserver.registry.store`)
    tools     (server, version, name) -> description, target, schema, definition hash, evidence,
              example requests (a JSON list of strings, :mod:`metaserver.registry.requests`),
              embedding (the tool's sentence vectors, :mod:`metaserver.registry.embeddings`)
              and the model that computed it
    tools_fts the search index: the tools of each server's *latest* version only
    search_state  a generation number that every change to the searchable tools bumps, so a
              process caching the vectors knows when to read them again

Version 5 existed in two forms while both were being built, one with added servers and one
with example requests; version 6 has both, and the migration below looks at columns, not at
the number, so either form (and 3 and 4) becomes 6:
- no ``kind`` in ``versions`` (3, 4, 5 with requests): every server was converted; versions
  get ``kind`` (``converted``) and an empty endpoint;
- no ``requests`` in ``tools`` (3, 4, 5 with added servers): tools get them written from
  their names, parameters and servers (deterministically, as a registration without them
  does), the search index is rebuilt with their column, and their vectors are computed
  again on the next search (the stored model id changed);
- no ``embedding`` (3): tools also get the two vector columns (empty), and search computes
  the missing vectors once, on first use.

Versions 1 and 2 had one row per server in ``servers`` and tools keyed by server; version 2
added the search index. Both become one version per server, named after the suffix of its
output directory (``servers/<name>-<token>``), else ``v1``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from metaserver.registry.requests import template_requests

SCHEMA_VERSION = 7

# The search index is kept by triggers, in the writer's own transaction, whichever process
# writes: search never sees a half-registered server and never needs a rebuild. Only the
# latest version of a server is indexed (an older version stays callable by name@version, but
# is not offered). Columns: the tool name split into words, its description, the names and
# descriptions of its parameters, where it comes from (server name, import target), and its
# example requests.
_FTS_ROW = """
SELECT {t}.id, {t}.server, {t}.name,
    replace(replace({t}.name, '_', ' '), '-', ' '),
    {t}.description,
    CASE WHEN json_valid({t}.input_schema) THEN coalesce((
        SELECT group_concat(
            p.key || ' ' || replace(p.key, '_', ' ') || ' '
            || coalesce(json_extract(p.value, '$.description'), ''), ' ')
        FROM json_each({t}.input_schema, '$.properties') AS p
        WHERE p.type = 'object'
    ), '') ELSE '' END,
    replace(replace({t}.server, '_', ' '), '-', ' ') || ' ' || {t}.target,
    CASE WHEN json_valid({t}.requests) THEN coalesce((
        SELECT group_concat(r.value, ' ') FROM json_each({t}.requests) AS r
    ), '') ELSE '' END
"""
_FTS_INSERT = (
    "INSERT INTO tools_fts(rowid, server, tool, words, description, parameters, origin, requests)"
)
_NEW_IS_LATEST = " WHERE new.version = (SELECT latest FROM servers WHERE name = new.server)"
_INDEX_NEW_TOOL = _FTS_INSERT + _FTS_ROW.format(t="new") + _NEW_IS_LATEST + ";"
_INDEX_LATEST = (
    _FTS_INSERT
    + _FTS_ROW.format(t="tools")
    + " FROM tools WHERE tools.server = new.name AND tools.version = new.latest;"
)

# What changes the searchable tools: any tool row, and a server's latest version.
_TOOL_EVENTS = ("INSERT", "DELETE", "UPDATE")
_SERVER_EVENTS = ("INSERT", "DELETE", "UPDATE OF latest")

# The columns every version has had since version 3, in the order writers give them.
VERSION_COLUMNS = (
    "server, version, source, commit_sha, source_version, identity, output_dir, python_path,"
    " venv, workspace, environment_lock, generator_version, report, created_at"
)

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS servers (
        name TEXT PRIMARY KEY,
        latest TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS versions (
        server TEXT NOT NULL REFERENCES servers(name) ON DELETE CASCADE,
        version TEXT NOT NULL,
        source TEXT NOT NULL,
        commit_sha TEXT,
        source_version TEXT,
        identity TEXT NOT NULL,
        output_dir TEXT NOT NULL,
        python_path TEXT NOT NULL,
        venv TEXT NOT NULL,
        workspace TEXT,
        environment_lock TEXT NOT NULL DEFAULT '',
        generator_version TEXT NOT NULL,
        report TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL,
        kind TEXT NOT NULL DEFAULT 'converted',
        endpoint TEXT,
        PRIMARY KEY (server, version)
    )""",
    # An explicit INTEGER PRIMARY KEY: it is the search index's rowid, which VACUUM would be
    # free to renumber if it were the implicit one.
    """CREATE TABLE IF NOT EXISTS tools (
        id INTEGER PRIMARY KEY,
        server TEXT NOT NULL,
        version TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        target TEXT NOT NULL,
        input_schema TEXT NOT NULL,
        definition_hash TEXT NOT NULL,
        evidence TEXT NOT NULL DEFAULT 'null',
        requests TEXT NOT NULL DEFAULT '[]',
        embedding BLOB,
        embedding_model TEXT,
        UNIQUE (server, version, name),
        FOREIGN KEY (server, version) REFERENCES versions(server, version) ON DELETE CASCADE
    )""",
    # Exact tool names rank first in search: found by this index, not a scan.
    "CREATE INDEX IF NOT EXISTS tools_by_name ON tools(name)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS tools_fts USING fts5(
        server UNINDEXED, tool UNINDEXED, words, description, parameters, origin, requests,
        tokenize = 'porter unicode61'
    )""",
    f"""CREATE TRIGGER IF NOT EXISTS tools_fts_insert AFTER INSERT ON tools BEGIN
        {_INDEX_NEW_TOOL}
    END""",
    """CREATE TRIGGER IF NOT EXISTS tools_fts_delete AFTER DELETE ON tools BEGIN
        DELETE FROM tools_fts WHERE rowid = old.id;
    END""",
    # Only module constants are interpolated into these triggers.
    f"""CREATE TRIGGER IF NOT EXISTS tools_fts_update AFTER UPDATE ON tools BEGIN
        DELETE FROM tools_fts WHERE rowid = old.id;
        {_INDEX_NEW_TOOL}
    END""",  # noqa: S608
    """CREATE TABLE IF NOT EXISTS search_state (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        generation INTEGER NOT NULL
    )""",
    "INSERT OR IGNORE INTO search_state (id, generation) VALUES (0, 0)",
    # How many tool rows were changed in place (version 7): search's held index and vectors
    # follow inserts and removals by what they add and drop (registry/lexical_delta.py,
    # vector_delta.py), and a row changed in place (its vectors filled, its requests
    # written) is read again whole.
    """CREATE TABLE IF NOT EXISTS tool_updates (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        count INTEGER NOT NULL
    )""",
    "INSERT OR IGNORE INTO tool_updates (id, count) VALUES (0, 0)",
    """CREATE TRIGGER IF NOT EXISTS tools_update_count AFTER UPDATE ON tools BEGIN
        UPDATE tool_updates SET count = count + 1 WHERE id = 0;
    END""",
    *(
        f"""CREATE TRIGGER IF NOT EXISTS {table}_{event.split()[0].lower()}_generation
        AFTER {event} ON {table} BEGIN
            UPDATE search_state SET generation = generation + 1 WHERE id = 0;
        END"""  # noqa: S608 - only module constants are interpolated
        for table, events in (("tools", _TOOL_EVENTS), ("servers", _SERVER_EVENTS))
        for event in events
    ),
    f"""CREATE TRIGGER IF NOT EXISTS servers_fts_insert AFTER INSERT ON servers BEGIN
        {_INDEX_LATEST}
    END""",
    # A new latest version swaps the server's indexed tools, in the same transaction.
    f"""CREATE TRIGGER IF NOT EXISTS servers_fts_latest AFTER UPDATE OF latest ON servers BEGIN
        DELETE FROM tools_fts WHERE rowid IN (
            SELECT id FROM tools WHERE server = old.name AND version = old.latest);
        {_INDEX_LATEST}
    END""",  # noqa: S608
)


def ensure_schema(db: sqlite3.Connection) -> None:
    """Create the schema, or migrate an older one, in one write transaction.

    Cheap when the file is current (one pragma read). The connection must be in autocommit
    mode (``isolation_level=None``); foreign keys are off while a migration copies tables, so
    that dropping the old ones cascades nothing, and on again afterwards.
    """
    if _user_version(db) >= SCHEMA_VERSION:
        db.execute("PRAGMA foreign_keys=ON")
        return
    db.execute("PRAGMA foreign_keys=OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        # Re-checked under the write lock: another process may have done it meanwhile.
        if _user_version(db) < SCHEMA_VERSION:
            legacy = _has_legacy_tables(db)
            columns = _columns(db, "tools")
            if legacy:
                _rename_legacy(db)
            elif columns and "requests" not in columns:
                # Versions 3 and 4: the same tables, less the vectors (3) and the requests.
                if "embedding" not in columns:
                    db.execute("ALTER TABLE tools ADD COLUMN embedding BLOB")
                    db.execute("ALTER TABLE tools ADD COLUMN embedding_model TEXT")
                db.execute("ALTER TABLE tools ADD COLUMN requests TEXT NOT NULL DEFAULT '[]'")
                drop_search_index(db)
            for statement in STATEMENTS:
                db.execute(statement)
            if "kind" not in _columns(db, "versions"):
                # Versions 3 and 4: every server was converted.
                db.execute("ALTER TABLE versions ADD COLUMN kind TEXT NOT NULL DEFAULT 'converted'")
                db.execute("ALTER TABLE versions ADD COLUMN endpoint TEXT")
            if legacy:
                _copy_legacy(db)
            if legacy or (columns and "requests" not in columns):
                _write_requests(db)
                _reindex(db)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("PRAGMA foreign_keys=ON")


def _user_version(db: sqlite3.Connection) -> int:
    value: int = db.execute("PRAGMA user_version").fetchone()[0]
    return value


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _has_legacy_tables(db: sqlite3.Connection) -> bool:
    columns = _columns(db, "servers")
    return bool(columns) and "latest" not in columns


def drop_search_index(db: sqlite3.Connection) -> None:
    """Drop the search index and the triggers that write it (recreated with the schema)."""
    for trigger in (
        "tools_fts_insert",
        "tools_fts_delete",
        "tools_fts_update",
        "servers_fts_insert",
        "servers_fts_latest",
    ):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP TABLE IF EXISTS tools_fts")


def _write_requests(db: sqlite3.Connection) -> None:
    """Give every tool without example requests the deterministic ones."""
    rows = db.execute(
        "SELECT id, server, name, input_schema FROM tools WHERE requests = '[]'"
    ).fetchall()
    updates = []
    for tool_id, server, name, schema in rows:
        try:
            parsed = json.loads(schema)
        except ValueError:
            parsed = {}
        requests = template_requests(server, name, parsed if isinstance(parsed, dict) else {})
        updates.append((json.dumps(requests), tool_id))
    db.executemany("UPDATE tools SET requests = ? WHERE id = ?", updates)


def _reindex(db: sqlite3.Connection) -> None:
    """Fill the (new, empty) search index with every server's latest tools."""
    db.execute("DELETE FROM tools_fts")
    db.execute(
        _FTS_INSERT
        + _FTS_ROW.format(t="tools")
        + " FROM tools JOIN servers ON servers.name = tools.server"
        " AND servers.latest = tools.version"
    )


def _rename_legacy(db: sqlite3.Connection) -> None:
    # The v2 triggers and index go first: they name ``tools``, which is about to be renamed.
    for trigger in ("tools_fts_insert", "tools_fts_delete", "tools_fts_update"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP TABLE IF EXISTS tools_fts")
    db.execute("ALTER TABLE servers RENAME TO legacy_servers")
    db.execute("ALTER TABLE tools RENAME TO legacy_tools")


def _copy_legacy(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT name, source, commit_sha, version, output_dir, python_path, venv,"
        " environment_lock, generator_version, report, created_at FROM legacy_servers"
    ).fetchall()
    for name, source, commit, source_version, output_dir, *rest in rows:
        version = legacy_version_id(name, output_dir)
        python_path, venv, lock, generator, report, created_at = rest
        db.execute(
            "INSERT INTO servers (name, latest, created_at) VALUES (?, ?, ?)",
            (name, version, created_at),
        )
        db.execute(
            f"INSERT INTO versions ({VERSION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",  # noqa: S608
            (
                name,
                version,
                source,
                commit,
                source_version,
                identity_of(source, commit, source_version),
                output_dir,
                python_path,
                venv,
                None,  # v2 did not record the workspace
                lock,
                generator,
                report,
                created_at,
            ),
        )
        db.execute(
            "INSERT INTO tools (server, version, name, description, target, input_schema,"
            " definition_hash, evidence) SELECT server, ?, name, description, target,"
            " input_schema, definition_hash, evidence FROM legacy_tools WHERE server = ?"
            " ORDER BY name",
            (version, name),
        )
    db.execute("DROP TABLE legacy_tools")
    db.execute("DROP TABLE legacy_servers")


def legacy_version_id(name: str, output_dir: str) -> str:
    """The version id of a server registered before versions existed: its directory token."""
    stem, _, token = Path(output_dir).name.rpartition("-")
    return token if stem == name and token else "v1"


def identity_of(source: str, commit: str | None, source_version: str | None) -> str:
    """What makes two conversions "the same version": the source, and its commit when known
    (a git source), else its version (a pypi source), else nothing more (a plain directory)."""
    if commit:
        return f"{source}\x00commit\x00{commit}"
    if source_version:
        return f"{source}\x00version\x00{source_version}"
    return f"{source}\x00"
