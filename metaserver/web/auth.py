"""Who may read the page's data and ``/metrics``: the one function to swap for per-user
tokens (issue 34)."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from metaserver.settings import Settings


def authorized(request: Request, settings: Settings) -> bool:
    """Whether ``request`` carries the server's bearer token (always, when none is set: a
    loopback bind without a token, as ``/mcp`` allows)."""
    if settings.auth.token is None:
        return True
    token = settings.auth.token.get_secret_value()
    if not token:
        return True
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return False
    return secrets.compare_digest(given.strip().encode(), token.encode())


def refused() -> Response:
    """The 401 answer (rewritten by :mod:`metaserver.server.bearer_errors` to say why)."""
    return JSONResponse({"error": "unauthorized"}, status_code=401)
