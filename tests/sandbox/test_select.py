"""Backend choice: auto takes the strongest that works, a named one fails closed."""

from __future__ import annotations

import pytest

from metaserver.exceptions import SandboxError
from metaserver.sandbox import get_sandbox, unavailable_reason
from metaserver.settings import SandboxSettings


def test_auto_prefers_bwrap_where_it_works() -> None:
    settings = SandboxSettings()
    expected = "bwrap" if unavailable_reason("bwrap", settings) is None else None
    if expected is None:
        pytest.skip(f"bwrap unavailable: {unavailable_reason('bwrap', settings)}")
    assert get_sandbox(settings).name == "bwrap"


def test_named_backend_fails_closed_when_missing() -> None:
    reason = unavailable_reason("docker", SandboxSettings())
    if reason is None:
        pytest.skip("a Docker engine is reachable here")
    with pytest.raises(SandboxError, match="docker"):
        get_sandbox(SandboxSettings(backend="docker"))
