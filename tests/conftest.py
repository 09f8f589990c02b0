"""Every test gets its own METASERVER_HOME; nothing reads the developer's real state."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from metaserver.settings import Settings

# CI runs the same examples every time (a red run must be reproducible) and without deadlines
# (a loaded 2-core machine makes timing meaningless); locally, hypothesis explores freely.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for key in list(os.environ):
        if key.startswith("METASERVER_") and key != "METASERVER_SANDBOX__BACKEND":
            monkeypatch.delenv(key)  # the backend under test is the runner's choice
    home = tmp_path / "home"
    monkeypatch.setenv("METASERVER_HOME", str(home))
    yield home


@pytest.fixture
def settings(isolated_home: Path) -> Settings:
    return Settings(home=isolated_home)
