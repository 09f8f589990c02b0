"""Concurrency limits shared by every Model object that talks to the same server.

Conversions each build their own Model, but the server's capacity is one resource, so the
semaphore is keyed by server, not by object. asyncio primitives belong to one event loop, so
the table is kept per loop (tests and ``asyncio.run`` callers each get their own).
"""

from __future__ import annotations

import asyncio
import weakref

_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def shared_limit(key: str, limit: int) -> asyncio.Semaphore:
    """The semaphore for ``key`` in the running loop, created with ``limit`` on first use."""
    per_loop = _LIMITS.setdefault(asyncio.get_running_loop(), {})
    if key not in per_loop:
        per_loop[key] = asyncio.Semaphore(limit)
    return per_loop[key]
