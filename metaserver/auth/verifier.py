"""The bearer-token verifier of the HTTP transport: the operator's static token, the tokens
of ``metaserver token create``, and, with an issuer configured, its JWTs.

:func:`build_auth` chooses what FastMCP enforces: nothing when no kind of token is configured
(the server then binds loopback only, as before tokens existed); a plain verifier when there
are static or stored tokens; with an issuer, FastMCP's resource-server provider around it,
which publishes ``/.well-known/oauth-protected-resource/mcp`` (RFC 9728) and answers 401 and
403 with the ``WWW-Authenticate`` challenge the MCP authorization spec prescribes
(``resource_metadata``, ``scope``, ``error``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import TYPE_CHECKING

from fastmcp.server.auth import AccessToken, AuthProvider, RemoteAuthProvider, TokenVerifier
from pydantic import AnyHttpUrl

from metaserver.auth.context import access_token, for_principal
from metaserver.auth.roles import OPERATOR
from metaserver.auth.tokens import PREFIX, TokenStore
from metaserver.exceptions import RegistryError
from metaserver.settings import AuthSettings

if TYPE_CHECKING:
    from metaserver.auth.oauth import JwtVerifier

logger = logging.getLogger(__name__)


class TeamVerifier(TokenVerifier):
    """Accepts the static token (as ``operator``), stored tokens, and the issuer's JWTs."""

    def __init__(self, settings: AuthSettings, tokens: TokenStore) -> None:
        super().__init__(required_scopes=["call"])  # every role includes call
        secret = settings.token.get_secret_value() if settings.token else ""
        self._static = secret.encode()
        self._tokens = tokens
        self._jwt: JwtVerifier | None = None
        if settings.issuer:
            # Imported here: its HTTP client (httpx) is a second of a start without an issuer.
            from metaserver.auth.oauth import JwtVerifier

            self._jwt = JwtVerifier(settings)

    @property
    def oauth(self) -> JwtVerifier | None:
        """The JWT verifier, in OAuth mode."""
        return self._jwt

    async def verify_token(self, token: str) -> AccessToken | None:
        if self._static and hmac.compare_digest(token.encode(), self._static):
            return for_principal(OPERATOR)
        if token.startswith(PREFIX):
            verified = await asyncio.to_thread(self._tokens.verify, token)
            if verified is None:
                return None
            return for_principal(verified.principal, verified.expires_at)
        if self._jwt is not None and token.count(".") == 2:
            identity = await self._jwt.verify(token)
            if identity is not None:
                return access_token(
                    identity.name, identity.roles, identity.servers, "oauth", identity.expires_at
                )
        return None


def auth_configured(settings: AuthSettings, tokens: TokenStore) -> bool:
    """Whether HTTP requests must authenticate: a static token, an issuer, or stored tokens.

    A registry that cannot be read stores no usable token: the server then still serves its
    meta-tools on loopback, as it does with a broken registry, and refuses any other bind.
    """
    if settings.token or settings.issuer:
        return True
    try:
        return tokens.count() > 0
    except RegistryError as exc:
        logger.error("stored tokens could not be read: %s", exc)
        return False


def build_auth(settings: AuthSettings, tokens: TokenStore) -> AuthProvider | None:
    """What FastMCP enforces on HTTP (see the module's docstring)."""
    if not auth_configured(settings, tokens):
        return None
    verifier = TeamVerifier(settings, tokens)
    if verifier.oauth is None:
        return verifier
    assert settings.issuer is not None and settings.public_url is not None
    return RemoteAuthProvider(
        token_verifier=verifier,
        authorization_servers=[AnyHttpUrl(settings.issuer)],
        base_url=settings.public_url,
        scopes_supported=verifier.oauth.scopes,
        challenge_scopes=verifier.oauth.scopes[:1],
        resource_name="metaserver",
    )
