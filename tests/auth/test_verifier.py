"""The verifier: the operator's static token, stored tokens and JWTs, and what FastMCP is
given to enforce for each configuration."""

from __future__ import annotations

from pathlib import Path

from fastmcp.server.auth import RemoteAuthProvider
from team_fixtures import Issuer, oauth_settings

from metaserver.auth.context import principal_of
from metaserver.auth.tokens import TokenStore
from metaserver.auth.verifier import TeamVerifier, auth_configured, build_auth
from metaserver.registry.store import Registry
from metaserver.settings import AuthSettings, Settings


async def test_each_kind_of_token_becomes_its_principal(settings: Settings, tmp_path: Path) -> None:
    tokens = TokenStore(Registry(settings.registry_path))
    stored = tokens.create("svc", "call", "a-*")
    issuer = Issuer()
    auth = AuthSettings.model_validate(
        {"token": "operator-secret", **oauth_settings(issuer.write_jwks(tmp_path / "k.json"))}
    )
    verifier = TeamVerifier(auth, tokens)
    operator = await verifier.verify_token("operator-secret")
    assert operator is not None and principal_of(operator).role == "admin"
    assert principal_of(operator).name == "operator" and operator.token == ""
    svc = await verifier.verify_token(stored)
    assert svc is not None and svc.scopes == ["call"]
    assert principal_of(svc).servers == "a-*" and principal_of(svc).via == "token"
    jwt_token = await verifier.verify_token(issuer.mint("bob", "metaserver:convert"))
    assert jwt_token is not None and principal_of(jwt_token).name == "oauth:bob"
    assert jwt_token.scopes == ["call", "convert"]
    for bad in ("operator-secreT", stored + "x", "a.b.c", ""):
        assert await verifier.verify_token(bad) is None


def test_what_is_enforced_follows_the_configuration(settings: Settings, tmp_path: Path) -> None:
    tokens = TokenStore(Registry(settings.registry_path))
    assert build_auth(AuthSettings(), tokens) is None and not auth_configured(
        AuthSettings(), tokens
    )
    tokens.create("first", "call")
    plain = build_auth(AuthSettings(), tokens)
    assert isinstance(plain, TeamVerifier) and plain.required_scopes == ["call"]
    oauth = AuthSettings.model_validate(oauth_settings(Issuer().write_jwks(tmp_path / "k.json")))
    provider = build_auth(oauth, tokens)
    assert isinstance(provider, RemoteAuthProvider)
    assert provider.scopes_supported == [
        "metaserver:call",
        "metaserver:convert",
        "metaserver:admin",
    ]
