"""The tables :mod:`metaserver.auth` keeps in the registry's SQLite file.

Created on first use with ``IF NOT EXISTS``, beside the registry's own tables and outside its
numbered schema (:mod:`metaserver.registry.schema`): a home of any earlier version gains them
on first use and nothing of it is migrated, and an older metaserver opening the file ignores
them.

    tokens  name -> sha256 of the token (never the token), role, server glob, created_at,
            expires_at (null: never)
    audit   one row per action: at, who, action, target (a server), outcome, seconds, the
            sha256 of the arguments (never the arguments), detail (our own words only)
"""

from __future__ import annotations

import sqlite3

STATEMENTS = (
    """CREATE TABLE IF NOT EXISTS auth_tokens (
        name TEXT PRIMARY KEY,
        token_sha256 TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        servers TEXT,
        created_at REAL NOT NULL,
        expires_at REAL
    )""",
    """CREATE TABLE IF NOT EXISTS audit (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        who TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        outcome TEXT NOT NULL,
        seconds REAL NOT NULL,
        arguments_sha256 TEXT,
        detail TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS audit_by_time ON audit(at)",
)


def ensure_tables(db: sqlite3.Connection) -> None:
    """Create this package's tables where they are missing (cheap when they exist)."""
    for statement in STATEMENTS:
        db.execute(statement)
