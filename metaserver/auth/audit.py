"""The audit log: who did what, when, with what outcome and how long it took.

One row per conversion, add, remove, token change and tool call, whether it came through the
meta-server or the command line. Arguments are kept only as the SHA-256 of their canonical
JSON: a call's arguments may hold a user's data or a credential (a source URL with a password
in it), and a hash still tells two calls with the same arguments apart from others.
``detail`` holds only metaserver's own words (why a request was refused, an error's type),
never text a tool or a client supplied. Rows older than ``auth.audit_retention_days`` are
deleted as new ones are written.

A tool call's row is queued (:meth:`AuditLog.record_soon`) and written in the background,
with every row queued meanwhile, in one transaction: a commit of its own cost each call more
than the call (tens of ms on a loaded disk, and one writer at a time), and nothing the
caller is answered depends on the row. The server's exit writes what is still queued.
"""

from __future__ import annotations

import asyncio
import getpass
import hashlib
import json
import logging
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Literal

from metaserver.auth.tables import ensure_tables
from metaserver.exceptions import RegistryError
from metaserver.registry.store import Registry

logger = logging.getLogger(__name__)

Outcome = Literal["ok", "error", "refused"]
_DAY = 86400.0
_MAX_ROWS = 10000  # an answer's size at most
_BATCH_SECONDS = 0.05
# A queued row: at, who, action, target, outcome, seconds, the arguments (hashed when
# written, off the event loop), detail.
_Row = tuple[float, str, str, str | None, Outcome, float, Any, str | None]


def hash_arguments(arguments: Any) -> str | None:
    """The SHA-256 (hex) of ``arguments`` as canonical JSON; None for no arguments."""
    if arguments is None or arguments == {}:
        return None
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def local_user() -> str:
    """The audit name of a command-line user: ``local:<login>``."""
    try:
        return f"local:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name (a container's bare uid)
        return "local"


@dataclass(frozen=True)
class AuditEvent:
    """One row of the log."""

    at: float
    who: str
    action: str
    target: str | None
    outcome: Outcome
    seconds: float
    arguments_sha256: str | None
    detail: str | None

    def as_json(self) -> dict[str, Any]:
        """The row as ``metaserver audit --json`` prints it (``at`` also in ISO 8601)."""
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at))
        return {**asdict(self), "time": when}


class AuditLog:
    """The audit rows of one home (in its registry file)."""

    def __init__(self, registry: Registry, retention_days: float = 0.0) -> None:
        self._registry = registry
        self._retention = retention_days * _DAY
        self._pending: list[_Row] = []
        self._writing = threading.Lock()  # one write at a time, rows in queue order
        self._writer: asyncio.Task[None] | None = None

    def record(
        self,
        who: str,
        action: str,
        outcome: Outcome,
        *,
        target: str | None = None,
        seconds: float = 0.0,
        arguments: Any = None,
        detail: str | None = None,
    ) -> None:
        """Write one row (and delete those past retention). A registry that cannot be written
        is logged, not raised: the action itself has happened or been refused already."""
        self._write([(time.time(), who, action, target, outcome, seconds, arguments, detail)])

    def record_soon(
        self,
        who: str,
        action: str,
        outcome: Outcome,
        *,
        target: str | None = None,
        seconds: float = 0.0,
        arguments: Any = None,
        detail: str | None = None,
    ) -> None:
        """Queue one row (its time is now), written by a background task of the running
        event loop with the rows queued meanwhile; :meth:`flush` writes them at once."""
        self._pending.append(
            (time.time(), who, action, target, outcome, seconds, arguments, detail)
        )
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_pending())

    async def _write_pending(self) -> None:
        while self._pending:
            # The rows of the next moment join this transaction: at one commit a call, its
            # thread's hop and commit cost the loaded 2-core machine more than the call did.
            await asyncio.sleep(_BATCH_SECONDS)
            await asyncio.to_thread(self.flush)

    def flush(self) -> None:
        """Write every queued row now, in the order they were queued."""
        with self._writing:
            rows, self._pending = self._pending, []
            if rows:
                self._write(rows)

    def _write(self, rows: list[_Row]) -> None:
        now = time.time()
        values = [
            (at, who, action, target, outcome, round(seconds, 3), hash_arguments(args), detail)
            for at, who, action, target, outcome, seconds, args, detail in rows
        ]
        try:
            with self._registry.connect() as db:
                ensure_tables(db)
                db.execute("BEGIN")
                db.executemany(
                    "INSERT INTO audit (at, who, action, target, outcome, seconds,"
                    " arguments_sha256, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    values,
                )
                if self._retention > 0:
                    db.execute("DELETE FROM audit WHERE at < ?", (now - self._retention,))
                db.execute("COMMIT")
        except RegistryError as exc:
            first = rows[0]
            logger.error(
                "%d audit rows not written (the first: %s %s by %s): %s",
                len(rows),
                first[2],
                first[4],
                first[1],
                exc,
            )

    def events(self, since: float | None = None, who: str | None = None) -> list[AuditEvent]:
        """Rows at or after ``since`` (epoch seconds), of ``who`` only when given, oldest
        first; the newest :data:`_MAX_ROWS` at most."""
        query = (
            "SELECT at, who, action, target, outcome, seconds, arguments_sha256, detail"
            " FROM audit WHERE (?1 IS NULL OR at >= ?1) AND (?2 IS NULL OR who = ?2)"
            " ORDER BY at DESC, id DESC LIMIT ?3"  # queued rows are written after later ones
        )
        values = (since, who, _MAX_ROWS)
        with self._registry.connect() as db:
            ensure_tables(db)
            rows = db.execute(query, values).fetchall()
        return [AuditEvent(*row) for row in reversed(rows)]
