"""Bearer tokens per person or service, kept in the registry as hashes.

A token is 32 random bytes (``mst_`` and URL-safe base64), shown once, when it is created;
the registry keeps its SHA-256 only. A fast hash is enough here, unlike for passwords: a
token has 256 bits of entropy, so no dictionary or brute force gets anywhere near one, and a
request is checked by one indexed lookup of the hash (no secret-dependent comparison).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from typing import cast

from metaserver.auth.roles import RESERVED_NAMES, ROLES, Principal, Role, check_glob
from metaserver.auth.tables import ensure_tables
from metaserver.exceptions import NameTakenError, NotFoundError, UserError
from metaserver.registry.store import Registry

PREFIX = "mst_"
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_DAY = 86400.0


def token_hash(token: str) -> str:
    """The SHA-256 (hex) a token is stored and looked up as."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class TokenInfo:
    """A stored token, less the token: what ``metaserver token list`` shows."""

    name: str
    role: Role
    servers: str | None
    created_at: float
    expires_at: float | None

    def expired(self, now: float) -> bool:
        """Whether the token's time is up at ``now``."""
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True)
class Verified:
    """A bearer token that checked out: who it acts for, and until when (epoch seconds)."""

    principal: Principal
    expires_at: float | None = None


class TokenStore:
    """The tokens of one home (in its registry file)."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def create(
        self, name: str, role: str, servers: str | None = None, expires_days: float | None = None
    ) -> str:
        """Store a new token; return it (the only time it is seen).

        Raises:
            UserError: a bad name, role, glob or lifetime.
            NameTakenError: a token of that name exists.
        """
        if not _NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise UserError(
                f"{name!r} is not a token name: 1-64 of a-z 0-9 . _ -, not "
                + " or ".join(sorted(RESERVED_NAMES))
            )
        if role not in ROLES:
            raise UserError(f"{role!r} is not a scope: one of {', '.join(ROLES)}")
        try:
            glob = check_glob(servers) if servers is not None else None
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if expires_days is not None and not 0 < expires_days <= 3650:
            raise UserError("--expires takes a number of days, more than 0 and at most 3650")
        token = PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        expires = now + expires_days * _DAY if expires_days is not None else None
        with self._registry.connect() as db:
            ensure_tables(db)
            try:
                db.execute(
                    "INSERT INTO auth_tokens (name, token_sha256, role, servers, created_at,"
                    " expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (name, token_hash(token), role, glob, now, expires),
                )
            except sqlite3.IntegrityError:
                raise NameTakenError(f"a token named {name!r} exists; revoke it first") from None
        return token

    def list(self) -> list[TokenInfo]:
        """Every stored token (expired ones too, until revoked), by name."""
        with self._registry.connect() as db:
            ensure_tables(db)
            rows = db.execute(
                "SELECT name, role, servers, created_at, expires_at FROM auth_tokens ORDER BY name"
            ).fetchall()
        return [TokenInfo(r[0], cast(Role, r[1]), r[2], r[3], r[4]) for r in rows]

    def revoke(self, name: str) -> None:
        """Delete the token ``name``: its next request gets 401.

        Raises:
            NotFoundError: no token has that name.
        """
        with self._registry.connect() as db:
            ensure_tables(db)
            deleted = db.execute("DELETE FROM auth_tokens WHERE name = ?", (name,)).rowcount
        if not deleted:
            raise NotFoundError(f"no token named {name!r}")

    def count(self) -> int:
        """How many tokens are stored."""
        with self._registry.connect() as db:
            ensure_tables(db)
            value: int = db.execute("SELECT count(*) FROM auth_tokens").fetchone()[0]
        return value

    def verify(self, token: str, now: float | None = None) -> Verified | None:
        """The principal of ``token``, or None if it is unknown, revoked or expired."""
        if not token.startswith(PREFIX):
            return None
        with self._registry.connect() as db:
            ensure_tables(db)
            row = db.execute(
                "SELECT name, role, servers, expires_at FROM auth_tokens WHERE token_sha256 = ?",
                (token_hash(token),),
            ).fetchone()
        if row is None:
            return None
        expires = row[3]
        if expires is not None and expires <= (time.time() if now is None else now):
            return None
        return Verified(Principal(row[0], cast(Role, row[1]), row[2], "token"), expires)
