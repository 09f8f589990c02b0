"""Which protocol era a stdio connection serves, as the fast path must know it (issue 31).

The MCP SDK serves a stdio connection in the era its first request opens
(``mcp.server.runner.serve_dual_era_loop``): a request carrying the 2026-07-28 ``_meta``
envelope (``io.modelcontextprotocol/protocolVersion``) that is not ``initialize`` opens a
*modern* connection, where every request carries its own envelope; anything else opens a
*legacy* one (the ``initialize`` handshake), where an enveloped request is refused. The
SDK's own client (and so FastMCP's) opens modern, so a fast path that knew only the legacy
era claimed none of its calls. :class:`Era` follows the requests FastMCP's loop sees and
says, per ``tools/call``, whether its ``_meta`` is one the full path would serve as a plain
call, and shapes the fast answer as the full path's runner shapes it in that era (the
version's result surface, ``resultType``, the ``serverInfo`` stamp of a modern result).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.shared.inbound import InboundModernRoute, classify_inbound_request
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    LOG_LEVEL_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

# What a plain call's _meta may hold besides the era's envelope: a progress token (FastMCP's
# client sends one with every call; a proxied tool reports no progress on either path) and
# the W3C trace context, which the fast path continues into its ``call`` span.
PLAIN_META = frozenset({"progressToken", "traceparent", "tracestate"})
_ENVELOPE = frozenset(
    {
        PROTOCOL_VERSION_META_KEY,
        CLIENT_INFO_META_KEY,
        CLIENT_CAPABILITIES_META_KEY,
        # The per-request log level: a proxied tool writes the client no log either way.
        LOG_LEVEL_META_KEY,
    }
)


def is_enveloped(params: Mapping[str, Any] | None) -> bool:
    """Whether ``params`` carry the 2026-07-28 envelope (as the SDK decides it: the version
    key alone, so a half-built envelope routes modern and is refused there)."""
    meta = params.get("_meta") if params else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta


class Era:
    """The era of one connection, decided by the first request FastMCP's loop is given."""

    def __init__(self, stamp: dict[str, Any]) -> None:
        """Args:
        stamp: the server's ``serverInfo`` stamp for a modern result's ``_meta``
            (``Server.server_info_stamp``).
        """
        self._stamp = stamp
        # A legacy answer is shaped for the version initialize negotiated, as the SDK's
        # runner negotiates it; a modern request names its own.
        self.decided = False
        self.modern = False
        self._legacy_version = LATEST_HANDSHAKE_VERSION

    def saw(self, method: str, params: Mapping[str, Any] | None) -> None:
        """Record a request passed on to FastMCP's loop; the first one decides the era."""
        if self.decided:
            return
        self.decided = True
        self.modern = method != "initialize" and is_enveloped(params)
        requested = (params or {}).get("protocolVersion")
        if not self.modern and requested in HANDSHAKE_PROTOCOL_VERSIONS:
            self._legacy_version = str(requested)

    def plain_version(self, params: Mapping[str, Any]) -> str | None:
        """The protocol version a ``tools/call`` with ``params`` is answered in, when the full
        path would serve it as a plain call; None when the full path must take it (the era
        is not decided yet, its envelope is the other era's or refused, or its ``_meta``
        asks for more than a plain call: a task, an extension's key)."""
        if not self.decided:
            return None  # the loop decides the era on a request it sees itself
        meta = params.get("_meta", {})
        if not isinstance(meta, Mapping):
            return None
        if not self.modern:
            if not set(meta) <= PLAIN_META:
                return None  # an envelope on a legacy connection is the SDK's to refuse
            return self._legacy_version
        if not set(meta) <= PLAIN_META | _ENVELOPE:
            return None
        route = classify_inbound_request({"method": "tools/call", "params": params})
        if not isinstance(route, InboundModernRoute):
            return None  # the full path words the refusal
        return route.protocol_version

    def wire_result(self, version: str, result: dict[str, Any]) -> dict[str, Any]:
        """A ``tools/call`` result dumped by alias, shaped as the SDK's runner sends it in
        ``version``: the version's result surface, and on a modern connection the
        ``serverInfo`` stamp (a result's own stamp wins, as there)."""
        shaped = serialize_server_result("tools/call", version, result)
        if self.modern:
            meta = shaped.get("_meta")
            if meta is None:
                shaped["_meta"] = {SERVER_INFO_META_KEY: dict(self._stamp)}
            elif isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None:
                shaped["_meta"] = {**meta, SERVER_INFO_META_KEY: dict(self._stamp)}
        return shaped
