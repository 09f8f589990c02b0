"""JWTs checked offline against a key set the tests mint: signature, issuer, audience,
expiry, and the scopes that give roles."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from team_fixtures import ISSUER, Issuer, es256_issuer, oauth_settings, stranger_token

from metaserver.auth.oauth import JwtVerifier, KeySource
from metaserver.settings import AuthSettings


def _verifier(issuer: Issuer, tmp_path: Path, **extra: Any) -> JwtVerifier:
    jwks = issuer.write_jwks(tmp_path / "jwks.json")
    return JwtVerifier(AuthSettings.model_validate({**oauth_settings(jwks), **extra}))


async def test_a_valid_token_gives_its_roles_and_glob(tmp_path: Path) -> None:
    issuer = Issuer()
    verifier = _verifier(issuer, tmp_path)
    token = issuer.mint("alice", "openid metaserver:convert", metaserver_servers="stats-*")
    identity = await verifier.verify(token)
    assert identity is not None
    assert identity.name == "oauth:alice" and identity.roles == ["call", "convert"]
    assert identity.servers == "stats-*" and identity.expires_at is not None
    listed = await verifier.verify(issuer.mint("bob", None, scp=["metaserver:admin"]))
    assert listed is not None and listed.roles == ["call", "convert", "admin"]


async def test_a_token_without_our_scopes_has_no_role(tmp_path: Path) -> None:
    issuer = Issuer()
    identity = await _verifier(issuer, tmp_path).verify(issuer.mint(scope="openid email"))
    assert identity is not None and identity.roles == []


@pytest.mark.parametrize(
    "claims",
    [
        {"aud": "https://other.example.org/mcp"},
        {"aud": None},
        {"iss": "https://evil.example.org"},
        {"exp": ("now", -120)},  # seconds from when the test runs, not from collection
        {"exp": None},
        {"nbf": ("now", 600)},
        {"sub": None},
        {"metaserver_servers": "a b"},
    ],
)
async def test_bad_claims_are_refused(tmp_path: Path, claims: dict[str, Any]) -> None:
    claims = {k: int(time.time()) + v[1] if isinstance(v, tuple) else v for k, v in claims.items()}
    issuer = Issuer()
    assert await _verifier(issuer, tmp_path).verify(issuer.mint(**claims)) is None


async def test_a_wrong_signature_or_algorithm_is_refused(tmp_path: Path) -> None:
    issuer = Issuer()
    verifier = _verifier(issuer, tmp_path)
    assert await verifier.verify(stranger_token()) is None
    assert await verifier.verify("not.a.jwt") is None
    # HS256 signed with the public modulus as the secret: the algorithm-confusion attack.
    public = json.dumps(issuer.jwks()["keys"][0]).encode()
    from joserfc.jwk import OctKey

    forged = jwt.encode(
        {"alg": "HS256", "kid": "k1"},
        {
            "iss": ISSUER,
            "aud": "https://mcp.example.org/mcp",
            "sub": "x",
            "exp": int(time.time()) + 60,
            "scope": "metaserver:admin",
        },
        OctKey.import_key(public),
        algorithms=["HS256"],
    )
    assert await verifier.verify(forged) is None


async def test_an_ec_key_set_and_a_set_audience(tmp_path: Path) -> None:
    key, jwks = es256_issuer()
    path = tmp_path / "ec.json"
    path.write_text(json.dumps(jwks))
    settings = AuthSettings.model_validate({**oauth_settings(path), "audience": "metaserver"})
    claims = {
        "iss": ISSUER,
        "aud": "metaserver",
        "sub": "svc",
        "exp": int(time.time()) + 60,
        "scope": "metaserver:call",
    }
    token = jwt.encode({"alg": "ES256", "kid": "e1"}, claims, key)
    identity = await JwtVerifier(settings).verify(token)
    assert identity is not None and identity.roles == ["call"]


@pytest.fixture
def jwks_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A loopback HTTP server publishing ``state['jwks']``, counting its fetches."""
    state: dict[str, Any] = {"jwks": {"keys": []}, "fetches": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state["fetches"] += 1
            body = json.dumps(state["jwks"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json", state
    finally:
        server.shutdown()


async def test_a_key_set_url_is_cached_and_refetched_for_a_new_key(
    jwks_server: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, state = jwks_server
    first = Issuer()
    state["jwks"] = first.jwks()
    verifier = JwtVerifier(AuthSettings.model_validate(oauth_settings(jwks_url=url)))
    for _ in range(3):
        assert await verifier.verify(first.mint()) is not None
    assert state["fetches"] == 1  # cached
    rotated = Issuer(RSAKey.generate_key(2048, parameters={"kid": "k2"}))
    state["jwks"] = {"keys": [*first.jwks()["keys"], *rotated.jwks()["keys"]]}
    monkeypatch.setattr("metaserver.auth.oauth.REFETCH_SECONDS", 0.0)
    assert await verifier.verify(rotated.mint()) is not None  # unknown kid: fetched again
    assert state["fetches"] == 2


def test_a_key_set_url_must_be_https_or_loopback() -> None:
    with pytest.raises(ValueError, match="https"):
        KeySource(AuthSettings.model_validate(oauth_settings(jwks_url="http://idp.example/k")))


def test_oauth_settings_must_be_complete() -> None:
    with pytest.raises(ValueError, match="public_url"):
        AuthSettings.model_validate({"issuer": ISSUER, "jwks_url": "https://idp/k"})
    with pytest.raises(ValueError, match="exactly one"):
        AuthSettings.model_validate({"issuer": ISSUER, "public_url": "https://m"})


async def test_verify_never_raises_on_a_missing_key_file(tmp_path: Path) -> None:
    settings = AuthSettings.model_validate(oauth_settings(tmp_path / "missing.json"))
    assert await JwtVerifier(settings).verify(Issuer().mint()) is None
    await asyncio.sleep(0)
