"""Sandbox backends under test: the real ones, skipped with the reason where they do not work.

On CI (``CI=true``) a missing bubblewrap is a failure, not a skip: ``.ci/run`` installs it,
and the confinement tests must run against the real backend.
"""

from __future__ import annotations

import os

import pytest

from metaserver.sandbox import unavailable_reason
from metaserver.settings import SandboxSettings


def require_backend(backend: str) -> None:
    """Skip the test (fail it on CI, for bwrap) unless ``backend`` works here."""
    reason = unavailable_reason(backend, SandboxSettings())
    if reason is None:
        return
    if backend == "bwrap" and os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"bwrap must work on CI: {reason}")
    pytest.skip(f"{backend} backend unavailable: {reason}")
