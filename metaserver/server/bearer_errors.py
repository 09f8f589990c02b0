"""401 answers that say what is wrong with the bearer token, and nothing about OAuth.

With static or stored tokens (``METASERVER_AUTH__TOKEN``, ``metaserver token create``) and
no issuer configured, there is no authorization server: FastMCP's
own 401s have an empty body when the token is missing, and, when it is wrong, a body telling
the client to re-register OAuth tokens, which sends clients such as the MCP Inspector into
an OAuth flow that cannot succeed. This ASGI middleware replaces every 401 with a JSON body
saying ``missing bearer token`` or ``invalid bearer token`` and a plain ``Bearer`` challenge
(no ``resource_metadata``).
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MISSING = "missing bearer token"
INVALID = "invalid bearer token"
_ADVICE = {
    MISSING: "send the header 'Authorization: Bearer <token>', with the operator's token "
    "(METASERVER_AUTH__TOKEN) or one made by `metaserver token create`",
    INVALID: "the token is not the operator's (METASERVER_AUTH__TOKEN) nor a stored one that "
    "is still valid: unknown, revoked or expired",
}


def _has_bearer(scope: Scope) -> bool:
    return any(
        name.lower() == b"authorization" and value[:7].lower() == b"bearer " and value[7:].strip()
        for name, value in scope.get("headers", [])
    )


class BearerErrors:
    """Rewrites 401 responses of the wrapped app (see the module's docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reason = INVALID if _has_bearer(scope) else MISSING
        replaced = False

        async def rewrite(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 401:
                replaced = True
                body = json.dumps({"error": reason, "error_description": _ADVICE[reason]})
                challenge = 'Bearer realm="metaserver"'
                if reason == INVALID:
                    challenge += ', error="invalid_token"'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body.encode())).encode()),
                            (b"www-authenticate", challenge.encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body.encode()})
                return
            if not replaced:  # the original 401's body is dropped
                await send(message)

        await self.app(scope, receive, rewrite)
