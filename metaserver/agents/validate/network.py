"""Whether a tool failed only because it reached for the network, which tools never get.

Tools run in a sandbox without a network (ARCHITECTURE.md, "Sandbox facts"), so an example
that downloads its data (a tutorial's ``fetch_openml(...)``, a reader given a URL) fails
there whatever our inference did. Its verdict is ``env_failure`` with that reason, never
``api_inference_error`` (which the repair loop would answer with other arguments, each
failing the same way) nor ``repo_internal_bug``. Said only on the resolver's or the
kernel's own words for an address that cannot be reached (no name resolution, no route),
which no library writes for anything else; a refused connection is not among them (a local
service the library expects may simply not be running).
"""

from __future__ import annotations

import re

__all__ = ["network_needed"]

_NO_NETWORK = re.compile(
    r"Temporary failure in name resolution"
    r"|Name or service not known"
    r"|nodename nor servname provided"
    r"|No address associated with hostname"
    r"|getaddrinfo failed"
    r"|Network is unreachable"
    r"|Failed to resolve '[^']+'"
)


def network_needed(error: str) -> str | None:
    """The words of ``error`` that show an unreachable network, else None."""
    found = _NO_NETWORK.search(error)
    return found.group(0) if found else None
