"""Sandbox backends for untrusted repository code; :func:`get_sandbox` picks one."""

from __future__ import annotations

import logging

from metaserver.exceptions import SandboxError
from metaserver.sandbox.base import Command, Policy, RunResult, Sandbox
from metaserver.sandbox.process import ProcessSandbox
from metaserver.settings import SandboxSettings

__all__ = ["Command", "Policy", "RunResult", "Sandbox", "get_sandbox"]

logger = logging.getLogger(__name__)
_warned = False


def get_sandbox(settings: SandboxSettings) -> Sandbox:
    """The configured backend; ``auto`` takes the strongest available, a named one fails closed."""
    global _warned
    if settings.backend in ("auto", "process"):
        if settings.backend == "auto" and not _warned:
            _warned = True
            logger.warning(
                "sandbox: no confining backend is available yet; repository code runs as a "
                "plain process with resource limits only"
            )
        return ProcessSandbox(settings)
    raise SandboxError(
        f"sandbox backend {settings.backend!r} is not available on this machine; "
        "set METASERVER_SANDBOX__BACKEND=process (or auto) to run without it"
    )
