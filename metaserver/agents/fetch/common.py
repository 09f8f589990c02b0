"""Helpers the parts of the fetch stage share: worker threads, timeouts, removal, redaction.

Blocking git and archive work runs in worker threads that a cancelled fetch still waits for;
a failed fetch removes its half-built tree, read-only entries included; and URLs, which may
carry a token, are redacted before they reach a log line or an error message.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from metaserver.exceptions import FetchError

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking ``func`` in a worker thread, and never return while it still runs."""
    task = asyncio.ensure_future(asyncio.to_thread(func, *args, **kwargs))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        # A thread cannot be interrupted. Waiting for it keeps the caller's cleanup from racing
        # a clone or an extraction that is still writing into dest; git's kill timeout and the
        # archive size caps bound the wait.
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it as never retrieved
        raise


def timeout_error(what: str, seconds: float) -> FetchError:
    error = FetchError(f"{what} timed out after {seconds:g} s")
    error.failure_type = "timeout"
    return error


_USERINFO_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")


def redact(text: str) -> str:
    """Hide credentials in URLs (``https://TOKEN@host``, ``https://user:pass@host``)."""

    def hide(match: re.Match[str]) -> str:
        scheme, userinfo = match.group("scheme"), match.group("userinfo")
        if scheme.lower().startswith("http"):
            return f"{scheme}***@"  # a lone http "user" is often a token
        user = userinfo.split(":", 1)[0]
        return f"{scheme}{user}:***@" if ":" in userinfo else match.group(0)

    return _USERINFO_RE.sub(hide, text)
