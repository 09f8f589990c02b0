"""Search needs no network: registration and search in a network namespace of their own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metaserver.registry.embeddings import MODEL_ID

pytestmark = pytest.mark.integration

_SCRIPT = """
import sqlite3, sys
from pathlib import Path
from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.registry.search import search_tools
from metaserver.settings import Settings

settings = Settings()
assert settings.index.offline
registry = Registry(settings.registry_path)
where = settings.servers_dir / "weather"
registry.register(ServerRecord(
    name="weather", source="test:weather", output_dir=where, python_path=where / "python",
    venv=where, generator_version="test",
    tools=[ToolRecord(name="forecast", description="Temperature and precipitation outlook.",
                      target="w:forecast", input_schema={}, definition_hash="h")],
))
hits = search_tools(registry, "will it rain in Paris tomorrow")
with sqlite3.connect(registry.path) as db:
    model = db.execute("SELECT embedding_model FROM tools").fetchone()[0]
print(hits[0].tool if hits else None, model)
"""


def _unshare() -> str | None:
    tool = shutil.which("unshare")
    if tool is None or os.geteuid() != 0:
        return None
    probe = subprocess.run([tool, "-n", "true"], capture_output=True, check=False)
    return tool if probe.returncode == 0 else None


@pytest.mark.skipif(_unshare() is None, reason="needs root and unshare for a network namespace")
def test_register_and_search_with_no_network(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env |= {"METASERVER_HOME": str(tmp_path / "home"), "METASERVER_INDEX__OFFLINE": "true"}
    unshare = _unshare()
    assert unshare is not None
    result = subprocess.run(
        [unshare, "-n", sys.executable, "-c", _SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # Found by meaning alone (no shared word), with the vector computed inside the namespace.
    assert result.stdout.split() == ["forecast", MODEL_ID]
