"""Backends under test: each real one that works here (see ``backends.require_backend``).

``bwrap-shipped`` is bwrap on a fresh machine: no system bubblewrap on ``PATH``, so ``auto``
takes the binary shipped with metaserver. The fixture's value is the backend's setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import path_without_bwrap, require_backend

from metaserver.sandbox.binary import shipped_bwrap, system_bwrap
from metaserver.sandbox.bwrap import working_bwrap
from metaserver.settings import SandboxSettings


@pytest.fixture(params=["bwrap", "bwrap-shipped", "process"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    name: str = request.param
    if name == "bwrap-shipped":
        monkeypatch.setenv("PATH", path_without_bwrap(tmp_path / "fresh-path"))
        assert system_bwrap() is None
        name = "bwrap"
        require_backend(name)
        assert working_bwrap(SandboxSettings())[0] == shipped_bwrap()
        return name
    require_backend(name)
    return name
