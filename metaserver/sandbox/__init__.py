"""Sandbox backends for untrusted repository code; :func:`get_sandbox` picks one.

``auto`` takes the strongest backend that works on this machine, in the order bwrap,
docker, process, and says loudly when it had to fall back to ``process``. A backend named in
``METASERVER_SANDBOX__BACKEND`` is used or nothing is: it fails closed with the reason.
"""

from __future__ import annotations

import logging

from metaserver.exceptions import SandboxError
from metaserver.sandbox.base import Command, Policy, RunResult, Sandbox
from metaserver.sandbox.bwrap import BwrapSandbox
from metaserver.sandbox.docker import DockerSandbox
from metaserver.sandbox.process import ProcessSandbox
from metaserver.settings import SandboxSettings

__all__ = [
    "BwrapSandbox",
    "Command",
    "DockerSandbox",
    "Policy",
    "ProcessSandbox",
    "RunResult",
    "Sandbox",
    "get_sandbox",
    "unavailable_reason",
]

logger = logging.getLogger(__name__)
_warned = False


def unavailable_reason(backend: str, settings: SandboxSettings) -> str | None:
    """None when ``backend`` works here, else why not."""
    if backend == "bwrap":
        return BwrapSandbox.available(settings)
    if backend == "docker":
        return DockerSandbox.available(settings)
    if backend == "process":
        return None
    return f"unknown sandbox backend {backend!r}"


def get_sandbox(settings: SandboxSettings) -> Sandbox:
    """The configured backend; ``auto`` takes the strongest available, a named one fails closed.

    Raises:
        SandboxError: the named backend does not work on this machine.
    """
    global _warned
    if settings.backend != "auto":
        reason = unavailable_reason(settings.backend, settings)
        if reason is not None:
            raise SandboxError(f"sandbox backend {settings.backend!r} is not available: {reason}")
        return _make(settings.backend, settings)
    reasons = []
    for backend in ("bwrap", "docker"):
        reason = unavailable_reason(backend, settings)
        if reason is None:
            return _make(backend, settings)
        reasons.append(f"{backend}: {reason}")
    if not _warned:
        _warned = True
        logger.warning(
            "sandbox: NO CONFINING BACKEND WORKS HERE (%s); repository code runs under the "
            "weak 'process' backend, which does not hide the file system",
            "; ".join(reasons),
        )
    return ProcessSandbox(settings)


def _make(backend: str, settings: SandboxSettings) -> Sandbox:
    if backend == "bwrap":
        return BwrapSandbox(settings)
    if backend == "docker":
        return DockerSandbox(settings)
    return ProcessSandbox(settings)
