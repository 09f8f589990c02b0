"""Every test gets its own METASERVER_HOME; nothing reads the developer's real state."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from metaserver.models.profile import forget_profiles
from metaserver.models.speed import forget_speeds
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
    forget_profiles()  # a scripted model server may reuse an earlier one's port
    forget_speeds()
    yield home


@pytest.fixture
def settings(isolated_home: Path) -> Settings:
    return Settings(home=isolated_home)


SCIENCE_LIBRARIES = ["numpy", "pandas", "sympy", "networkx", "pint"]


@pytest.fixture(scope="session")
def science_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A uv environment's python with the libraries the runtime's domain codecs and the
    probe's table literals serve (not metaserver dependencies), built once per session
    from the configured index or uv cache."""
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    venv = tmp_path_factory.mktemp("science") / "venv"
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [uv, "pip", "install", "-q", "-p", str(python), *SCIENCE_LIBRARIES, "hypothesis"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if installed.returncode != 0:
        pytest.skip(f"cannot install {SCIENCE_LIBRARIES}: {installed.stderr[-300:]}")
    return python
