"""The audit log keeps who, what, when, outcome and duration, and hashes of arguments."""

from __future__ import annotations

import asyncio
import time

import pytest

from metaserver.auth.audit import AuditLog, hash_arguments
from metaserver.registry.store import Registry
from metaserver.settings import Settings


@pytest.fixture
def registry(settings: Settings) -> Registry:
    return Registry(settings.registry_path)


def test_rows_are_filtered_by_time_and_principal(registry: Registry) -> None:
    log = AuditLog(registry)
    log.record("alice", "call_generated", "ok", target="alpha", seconds=0.5, arguments={"a": 1})
    middle = time.time()
    log.record("bob", "remove_server", "refused", target="alpha", detail="needs admin")
    rows = log.events()
    assert [(r.who, r.action, r.outcome, r.target) for r in rows] == [
        ("alice", "call_generated", "ok", "alpha"),
        ("bob", "remove_server", "refused", "alpha"),
    ]
    assert rows[0].seconds == 0.5 and rows[0].arguments_sha256 == hash_arguments({"a": 1})
    assert rows[1].arguments_sha256 is None and rows[1].detail == "needs admin"
    assert [r.who for r in log.events(since=middle)] == ["bob"]
    assert [r.who for r in log.events(who="alice")] == ["alice"]
    assert rows[0].as_json()["time"].endswith("Z")


def test_arguments_are_hashed_never_stored(registry: Registry, settings: Settings) -> None:
    secret = "https://user:hunter2-password@git.example/repo"
    AuditLog(registry).record("alice", "convert_repo", "ok", arguments={"source": secret})
    raw = b"".join(p.read_bytes() for p in settings.registry_path.parent.iterdir() if p.is_file())
    assert b"hunter2" not in raw
    assert hash_arguments({"b": 1, "a": 2}) == hash_arguments({"a": 2, "b": 1})
    assert hash_arguments({"a": 1}) != hash_arguments({"a": 2})


def test_old_rows_go_after_the_retention(registry: Registry) -> None:
    keep = AuditLog(registry, retention_days=1)
    keep.record("old", "call", "ok")
    with registry.connect() as db:  # a row from three days ago
        db.execute("UPDATE audit SET at = at - 3 * 86400")
    keep.record("new", "call", "ok")
    assert [r.who for r in keep.events()] == ["new"]
    forever = AuditLog(registry, retention_days=0)
    with registry.connect() as db:
        db.execute("UPDATE audit SET at = at - 3000 * 86400")
    forever.record("newer", "call", "ok")
    assert [r.who for r in forever.events()] == ["new", "newer"]


async def test_queued_rows_are_written_in_order_without_waiting(registry: Registry) -> None:
    log = AuditLog(registry)
    log.record("setup", "token create", "ok")  # the file and its tables exist
    for n in range(50):
        log.record_soon("alice", "bench_add", "ok", target="bench", arguments={"n": n})
    # Queued, not written: the caller was answered before any commit.
    assert [r.who for r in log.events()] == ["setup"]
    for _ in range(200):  # the background task writes them, in one transaction or a few
        await asyncio.sleep(0.05)
        if len(log.events()) == 51:
            break
    rows = log.events()[1:]
    assert [r.arguments_sha256 for r in rows] == [hash_arguments({"n": n}) for n in range(50)]
    assert [r.at for r in rows] == sorted(r.at for r in rows)


async def test_flush_writes_what_is_queued(registry: Registry) -> None:
    log = AuditLog(registry)
    log.record_soon("bob", "call_generated", "refused", detail="forbidden")
    log.flush()  # as the server's exit does, before the writer task has run
    assert [(r.who, r.outcome, r.detail) for r in log.events()] == [("bob", "refused", "forbidden")]
    await asyncio.sleep(0.1)  # the writer task finds nothing left: no row twice
    assert len(log.events()) == 1
