"""Tokens are shown once, stored as hashes, and stop working when revoked or expired."""

from __future__ import annotations

import time

import pytest

from metaserver.auth.tokens import PREFIX, TokenStore, token_hash
from metaserver.exceptions import NameTakenError, NotFoundError, UserError
from metaserver.registry.store import Registry
from metaserver.settings import Settings


@pytest.fixture
def store(settings: Settings) -> TokenStore:
    return TokenStore(Registry(settings.registry_path))


def test_a_token_verifies_as_its_principal(store: TokenStore) -> None:
    token = store.create("alice", "convert", "stats-*", expires_days=1)
    assert token.startswith(PREFIX) and len(token) > 40
    verified = store.verify(token)
    assert verified is not None
    assert (verified.principal.name, verified.principal.role) == ("alice", "convert")
    assert verified.principal.servers == "stats-*" and verified.principal.via == "token"
    assert verified.expires_at is not None and verified.expires_at > time.time() + 3600
    assert store.verify(token + "x") is None and store.verify("other") is None


def test_only_the_hash_is_stored(store: TokenStore, settings: Settings) -> None:
    token = store.create("bob", "call")
    raw = b"".join(
        path.read_bytes() for path in settings.registry_path.parent.iterdir() if path.is_file()
    )
    assert token.encode() not in raw
    with Registry(settings.registry_path).connect() as db:
        stored = db.execute("SELECT token_sha256 FROM auth_tokens").fetchall()
    assert stored == [(token_hash(token),)]


def test_revoked_and_expired_tokens_fail(store: TokenStore) -> None:
    token = store.create("carol", "call", expires_days=1)
    assert store.verify(token, now=time.time() + 2 * 86400) is None  # expired
    assert store.verify(token) is not None
    store.revoke("carol")
    assert store.verify(token) is None
    with pytest.raises(NotFoundError):
        store.revoke("carol")


def test_list_shows_tokens_without_secrets(store: TokenStore) -> None:
    store.create("zed", "admin")
    store.create("amy", "call", "a-*")
    listed = store.list()
    assert [(i.name, i.role, i.servers) for i in listed] == [
        ("amy", "call", "a-*"),
        ("zed", "admin", None),
    ]
    assert store.count() == 2 and not listed[0].expired(time.time())


@pytest.mark.parametrize(
    ("name", "role", "servers", "days"),
    [
        ("Alice", "call", None, None),
        ("operator", "call", None, None),
        ("local", "call", None, None),
        ("x", "root", None, None),
        ("x", "call", "a b", None),
        ("x", "call", None, 0),
        ("x", "call", None, 99999),
    ],
)
def test_bad_requests_are_refused(
    store: TokenStore, name: str, role: str, servers: str | None, days: float | None
) -> None:
    with pytest.raises(UserError):
        store.create(name, role, servers, days)
    assert store.count() == 0


def test_names_are_unique(store: TokenStore) -> None:
    store.create("dup", "call")
    with pytest.raises(NameTakenError):
        store.create("dup", "admin")
