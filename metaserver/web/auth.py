"""Who may read the page's data and ``/metrics``: a principal with the ``admin`` role, by
the same bearer tokens ``/mcp`` accepts (the operator's static token, stored tokens, the
issuer's JWTs: :class:`metaserver.auth.verifier.TeamVerifier`).

The page shows every server and can start conversions and call any tool, so it is an
operator's view: a ``call`` or ``convert`` token, or one limited to some servers, is refused
here as it would be refused those actions. With no authentication configured at all (a
loopback bind, as ``/mcp`` allows), anyone who reaches it may.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from metaserver.auth.context import principal_of
from metaserver.auth.tokens import TokenStore
from metaserver.auth.verifier import TeamVerifier, auth_configured
from metaserver.registry.store import Registry
from metaserver.settings import Settings


class PageAuth:
    """The page's check, built once per server from its settings and registry."""

    def __init__(self, settings: Settings, registry: Registry) -> None:
        self._tokens = TokenStore(registry)
        self._settings = settings.auth
        self._verifier = TeamVerifier(settings.auth, self._tokens)

    async def authorized(self, request: Request) -> bool:
        """Whether ``request`` carries a token of an admin who sees every server."""
        if not auth_configured(self._settings, self._tokens):
            return True
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return False
        token = await self._verifier.verify_token(given.strip())
        if token is None:
            return False
        principal = principal_of(token)
        return principal.may("admin") and principal.servers is None


def refused() -> Response:
    """The 401 answer (rewritten by :mod:`metaserver.server.bearer_errors` to say why)."""
    return JSONResponse({"error": "unauthorized"}, status_code=401)
