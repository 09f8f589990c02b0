"""Keys, key sets and JWTs the team tests mint themselves, and settings for a team server."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey

ISSUER = "https://idp.example.org"
PUBLIC_URL = "https://mcp.example.org"
RESOURCE = PUBLIC_URL + "/mcp"


@dataclass
class Issuer:
    """An authorization server of the tests' own: a signing key and its public key set."""

    key: RSAKey = field(default_factory=lambda: RSAKey.generate_key(2048, parameters={"kid": "k1"}))

    def jwks(self) -> dict[str, Any]:
        """The public key set, as an issuer publishes it."""
        return KeySet([self.key]).as_dict(private=False)

    def write_jwks(self, path: Path) -> Path:
        path.write_text(json.dumps(self.jwks()), encoding="utf-8")
        return path

    def mint(self, sub: str = "alice", scope: str = "metaserver:call", **claims: Any) -> str:
        """A JWT of this issuer; ``claims`` override the defaults (None drops one)."""
        now = int(time.time())
        values: dict[str, Any] = {
            "iss": ISSUER,
            "aud": RESOURCE,
            "sub": sub,
            "scope": scope,
            "iat": now,
            "exp": now + 600,
            **claims,
        }
        values = {k: v for k, v in values.items() if v is not None}
        return jwt.encode({"alg": "RS256", "kid": self.key.kid}, values, self.key)


def stranger_token(sub: str = "alice") -> str:
    """A well-formed JWT for the right issuer and audience, signed by a key nobody trusts."""
    return Issuer(RSAKey.generate_key(2048, parameters={"kid": "k1"})).mint(sub)


def es256_issuer() -> tuple[ECKey, dict[str, Any]]:
    """An elliptic-curve key (kid ``e1``) and its public key set."""
    key = ECKey.generate_key("P-256", parameters={"kid": "e1"})
    return key, KeySet([key]).as_dict(private=False)


def oauth_settings(jwks_file: Path | None = None, jwks_url: str | None = None) -> dict[str, Any]:
    """The ``auth`` section of a server in OAuth mode."""
    return {
        "issuer": ISSUER,
        "public_url": PUBLIC_URL,
        "jwks_file": jwks_file,
        "jwks_url": jwks_url,
    }
