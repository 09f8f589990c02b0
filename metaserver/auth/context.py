"""The principal of the request being served, carried in FastMCP's access token.

The verifier (:mod:`metaserver.auth.verifier`) turns a bearer token into an
:class:`~fastmcp.server.auth.AccessToken` whose ``client_id`` is the principal's name, whose
``scopes`` are the roles it holds, and whose claims hold its server glob and how it was
authenticated. A request with no access token is the local user's (stdio, or HTTP on
loopback with no authentication configured), who may do everything, as before tokens.
"""

from __future__ import annotations

from typing import Any

from fastmcp.server.auth import AccessToken
from fastmcp.server.dependencies import get_access_token
from mcp.server.auth.provider import AccessToken as SdkAccessToken

from metaserver.auth.roles import LOCAL, ROLES, Principal, Role, Via, grants

_CLAIM = "metaserver"


def access_token(
    name: str, roles: list[Role], servers: str | None, via: Via, expires_at: float | None
) -> AccessToken:
    """The access token FastMCP keeps for a request of principal ``name`` (``roles`` may be
    empty: authenticated, but refused with 403)."""
    return AccessToken(
        token="",  # never kept: the request's token is the client's secret
        client_id=name,
        scopes=list(roles),
        expires_at=int(expires_at) if expires_at is not None else None,
        claims={_CLAIM: {"servers": servers, "via": via}},
    )


def for_principal(principal: Principal, expires_at: float | None = None) -> AccessToken:
    """The access token of ``principal``."""
    return access_token(
        principal.name, grants(principal.role), principal.servers, principal.via, expires_at
    )


def principal_of(token: SdkAccessToken | None) -> Principal:
    """The principal an access token stands for (None: the local user)."""
    if token is None:
        return LOCAL
    extra: dict[str, Any] = (token.claims or {}).get(_CLAIM) or {}
    roles = [role for role in ROLES if role in token.scopes]
    # No role at all never gets this far (403); "call" is the least, should it.
    role: Role = roles[-1] if roles else "call"
    return Principal(token.client_id, role, extra.get("servers"), extra.get("via", "token"))


def current_principal() -> Principal:
    """The principal of the request being served."""
    return principal_of(get_access_token())
