"""OAuth 2.1 resource-server mode: JWT access tokens of one issuer, checked offline.

A token is accepted when its signature verifies against a key of the issuer's JSON Web Key
Set (a file, or a URL fetched and cached), an asymmetric algorithm signed it, ``iss`` is the
issuer, ``aud`` names this server (the MCP authorization spec: a server must not accept a
token issued for another, so tokens are never passed through), and ``exp`` (and ``nbf``,
``iat`` when present) hold. Its scopes ``<prefix>call|convert|admin`` give its roles; a
token with none of them is authenticated but refused (403, insufficient_scope). The key set
is fetched again, at most every :data:`REFETCH_SECONDS`, when a token names a key id it
lacks: an issuer rotating keys is followed without a restart.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from metaserver.auth.roles import ROLES, Role, check_glob
from metaserver.settings import AuthSettings

logger = logging.getLogger(__name__)

# Asymmetric only: with a public key set, accepting HS256 would let anyone holding the
# public key sign (the classic algorithm-confusion attack), and "none" signs nothing.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]
REFETCH_SECONDS = 30.0
MAX_JWKS_BYTES = 512 * 1024
_LEEWAY = 30  # seconds of clock skew between the issuer and this machine


@dataclass(frozen=True)
class Identity:
    """A token that verified: its principal's name (``oauth:<sub>``), the roles its scopes
    give (possibly none), its server glob, and its expiry (epoch seconds)."""

    name: str
    roles: list[Role]
    servers: str | None
    expires_at: float | None


def resource_url(settings: AuthSettings) -> str:
    """The protected resource: ``<public_url>/mcp``."""
    assert settings.public_url is not None, "checked by AuthSettings"
    return settings.public_url.rstrip("/") + "/mcp"


def _loopback_host(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class KeySource:
    """The issuer's key set, from a file (re-read when it changes) or a URL (cached)."""

    def __init__(self, settings: AuthSettings) -> None:
        self._file = settings.jwks_file
        self._url = settings.jwks_url
        if self._url is not None and urlsplit(self._url).scheme != "https":
            if not _loopback_host(self._url):
                raise ValueError("auth.jwks_url must be https (http only to a loopback address)")
        self._ttl = settings.jwks_cache_seconds
        self._keys: KeySet | None = None
        self._stamp: float = 0.0  # a file's mtime, or when the URL was fetched
        self._lock = asyncio.Lock()

    async def keys(self, refresh: bool = False) -> KeySet:
        """The key set; ``refresh``: fetch the URL again unless it was fetched just now."""
        async with self._lock:
            if self._file is not None:
                return self._from_file(self._file)
            assert self._url is not None
            age = time.monotonic() - self._stamp
            stale = self._keys is None or age > self._ttl or (refresh and age > REFETCH_SECONDS)
            if stale:
                self._keys = await self._fetch(self._url)
                self._stamp = time.monotonic()
            assert self._keys is not None
            return self._keys

    def _from_file(self, path: Path) -> KeySet:
        stat = path.stat()
        if self._keys is None or stat.st_mtime != self._stamp:
            if stat.st_size > MAX_JWKS_BYTES:
                raise ValueError(f"the key set file is over {MAX_JWKS_BYTES} bytes")
            self._keys = _key_set(json.loads(path.read_text(encoding="utf-8")))
            self._stamp = stat.st_mtime
        return self._keys

    @staticmethod
    async def _fetch(url: str) -> KeySet:
        async with httpx.AsyncClient(timeout=10, follow_redirects=False) as http:
            async with http.stream("GET", url) as answer:
                answer.raise_for_status()
                body = b""
                async for chunk in answer.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_JWKS_BYTES:
                        raise ValueError(f"the key set at {url} is over {MAX_JWKS_BYTES} bytes")
        return _key_set(json.loads(body))


def _key_set(document: Any) -> KeySet:
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("a JSON Web Key Set is an object with a 'keys' list")
    # Public keys only: a private member in a published set is the issuer's mistake, and
    # signing is never ours to do.
    public = [
        {k: v for k, v in key.items() if k not in ("d", "p", "q", "dp", "dq", "qi")}
        for key in document["keys"]
        if isinstance(key, dict)
    ]
    return KeySet.import_key_set({"keys": public})


class JwtVerifier:
    """Checks the JWTs of the configured issuer (see the module's docstring)."""

    def __init__(self, settings: AuthSettings) -> None:
        assert settings.issuer is not None, "OAuth mode needs an issuer"
        self._settings = settings
        self._audience = settings.audience or resource_url(settings)
        self._keys = KeySource(settings)
        self._claims = jwt.JWTClaimsRegistry(
            leeway=_LEEWAY,
            iss={"essential": True, "value": settings.issuer},
            aud={"essential": True, "value": self._audience},
            exp={"essential": True},
            sub={"essential": True},
        )

    @property
    def scopes(self) -> list[str]:
        """The token scopes that grant roles, ``call`` first."""
        return [self._settings.scope_prefix + role for role in ROLES]

    async def verify(self, token: str) -> Identity | None:
        """The identity of a valid token, None for any other (never an exception)."""
        try:
            decoded = await self._decode(token)
            self._claims.validate(decoded.claims)
            return self._identity(decoded.claims)
        except (JoseError, ValueError, TypeError, KeyError) as exc:
            logger.info("JWT refused: %s", type(exc).__name__)
            return None
        except (OSError, httpx.HTTPError) as exc:
            logger.error("the issuer's key set could not be read: %s", exc)
            return None

    async def _decode(self, token: str) -> jwt.Token:
        try:
            return jwt.decode(token, await self._keys.keys(), algorithms=ALGORITHMS)
        except InvalidKeyIdError as exc:
            # No key of that id: perhaps the issuer rotated its keys; fetch the set again.
            logger.debug("no matching key (%s); fetching the key set again", exc)
            return jwt.decode(token, await self._keys.keys(refresh=True), algorithms=ALGORITHMS)

    def _identity(self, claims: dict[str, Any]) -> Identity:
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject.isprintable() or len(subject) > 200:
            raise ValueError("sub is not a printable string of at most 200 characters")
        granted = claims.get("scope", claims.get("scp", ""))
        words = granted.split() if isinstance(granted, str) else granted
        if not isinstance(words, list):
            raise TypeError("scope is neither a string nor a list")
        prefix = self._settings.scope_prefix
        roles = [role for role in ROLES if prefix + role in words]
        best = roles[-1:]  # each role includes the ones before it
        glob = claims.get(self._settings.servers_claim)
        servers = check_glob(glob) if isinstance(glob, str) else None
        if glob is not None and not isinstance(glob, str):
            raise TypeError(f"{self._settings.servers_claim} is not a string")
        expires = claims.get("exp")
        return Identity(
            name=f"oauth:{subject}",
            roles=list(ROLES[: ROLES.index(best[0]) + 1]) if best else [],
            servers=servers,
            expires_at=float(expires) if isinstance(expires, int | float) else None,
        )
