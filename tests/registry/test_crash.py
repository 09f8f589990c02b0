"""kill -9 in the middle of a conversion corrupts nothing and leaves no half-registered server.

Real processes, really killed: ``metaserver convert`` of a fixture repository, SIGKILLed while
it fetches and while it holds the registration transaction open; and the register stage
killed after its commit, before it deletes the files of the version it replaced. A hook that
pauses the process is patched in by a wrapper script (``_RUN``), never read by the product.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo

from metaserver.registry.store import Registry
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

# argv: MARKER PATCH ARGS...: runs `metaserver ARGS`, or the script ARGS[0]. PATCH is "none",
# "in-transaction" (pause after the version's rows are written, before COMMIT) or
# "after-commit" (pause before the replaced version's files are deleted).
_RUN = """
import sys, time
from pathlib import Path
marker, patch, args = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]

def pause(*_):
    marker.write_text(patch)
    time.sleep(600)

if patch == "in-transaction":
    import metaserver.registry.store as store
    real = store._insert_version
    def paused(*a):
        real(*a)
        pause()
    store._insert_version = paused
elif patch == "after-commit":
    import metaserver.agents.register as register
    register.discard_files = pause
if args[0].endswith(".py"):  # a script of this test
    import runpy
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
else:
    from metaserver.cli import main
    sys.exit(main(args))
"""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    return env


def _start(home: Path, marker: Path, patch: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _RUN, str(marker), patch, *args],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # so that its children can be cleaned up after the kill
    )


def _kill_when(process: subprocess.Popen[str], ready: Callable[[], bool], limit: float) -> None:
    """SIGKILL ``process`` (only it: its children see their pipes close) once ``ready()``."""
    deadline = time.monotonic() + limit
    while not ready():
        assert process.poll() is None, process.communicate()[1][-2000:]
        assert time.monotonic() < deadline, "the kill point was never reached"
        time.sleep(0.005)
    process.kill()
    process.wait()
    # Whatever it had started (sandboxed validation servers, uv) goes too.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    process.stderr.close()


def _check_database(settings: Settings) -> None:
    if not settings.registry_path.exists():
        return
    with sqlite3.connect(settings.registry_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        tools = db.execute("SELECT count(*) FROM tools").fetchone()[0]
        versions = db.execute("SELECT count(*) FROM versions").fetchone()[0]
        assert (tools == 0) == (versions == 0)


def _entries(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir()) if path.is_dir() else []


def test_killed_conversions_leave_nothing_half_registered(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    settings = Settings(home=home)
    source = f"file://{repo}"
    marker = tmp_path / "marker"

    # 1. Killed while fetching: the staged tree stays behind, owned by a dead process.
    fetching = _start(home, marker, "none", "convert", source, "--json")
    _kill_when(fetching, lambda: any(settings.staging_dir.glob("fetch-*/*")), 120)
    _check_database(settings)
    assert Registry(settings.registry_path).list_servers() == []

    # 2. Killed inside the registration transaction, after a whole conversion: nothing of it
    #    is registered, and the database is intact.
    registering = _start(home, marker, "in-transaction", "convert", source, "--json")
    _kill_when(registering, marker.exists, 300)
    _check_database(settings)
    assert Registry(settings.registry_path).list_servers() == []
    assert len(_entries(settings.servers_dir)) == 1  # its files, registered by no row

    # 3. A new conversion of the same source succeeds, and cleans up after both.
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(marker), "none", "convert", source, "--json"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["status"] == "success" and report["changes"] is None
    record = Registry(settings.registry_path).get("calcpack")
    assert record.output_dir == Path(report["output_dir"])
    assert len(record.tools) == report["tools_passed"]
    token = record.version_id
    for parent in (settings.servers_dir, settings.environments_dir, settings.workspaces_dir):
        # The version's own directory, and maybe its scratch (.calcpack-<token>.repair).
        assert {p.split(".")[1] if p.startswith(".") else p for p in _entries(parent)} == {
            f"calcpack-{token}"
        }, parent
    # The dead runs' staging entries are gone; only this run's own lease file may remain.
    assert not [p for p in settings.staging_dir.iterdir() if p.is_dir()]
    _check_database(settings)


def test_register_killed_after_commit_keeps_the_complete_new_version(tmp_path: Path) -> None:
    """The replaced version's files outlive a kill after the commit; the next run sweeps them."""
    home = tmp_path / "home"
    settings = Settings(home=home)
    marker = tmp_path / "marker"
    script = tmp_path / "register.py"
    script.write_text(_REGISTER)
    env = _env(home)

    first = subprocess.run([sys.executable, str(script), "aaaa"], env=env, check=True)
    assert first.returncode == 0
    replacing = subprocess.Popen(
        [sys.executable, "-c", _RUN, str(marker), "after-commit", str(script), "bbbb"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _kill_when(replacing, marker.exists, 60)
    _check_database(settings)
    record = Registry(settings.registry_path).get("calc")
    # The same commit again keeps its version id (SERVER@VERSION stays valid, issue 28), and
    # the new files are the ones registered.
    assert record.version_id == "aaaa" and [t.name for t in record.tools] == ["add", "mean"]
    assert [r.version_id for r in Registry(settings.registry_path).versions("calc")] == ["aaaa"]
    assert record.output_dir.is_dir() and record.output_dir.name == "calc-bbbb"
    assert _entries(settings.servers_dir) == ["calc-aaaa", "calc-bbbb"]  # aaaa: unregistered

    subprocess.run([sys.executable, str(script), "cccc"], env=env, check=True)
    assert _entries(settings.servers_dir) == ["calc-cccc"]
    assert _entries(settings.workspaces_dir) == ["calc-cccc"]
    _check_database(settings)


# Runs the real register stage for a version TOKEN of one commit (so each run replaces the
# previous one), with directories laid out as the pipeline lays them out.
_REGISTER = """
import sys
from pathlib import Path
from metaserver.agents.register import register
from metaserver.contracts import (
    ConversionReport, Environment, Evidence, Source, ToolEvidence, ToolSpec, Workspace,
)
from metaserver.settings import Settings

token = sys.argv[1]
settings = Settings()
dirs = [d / f"calc-{token}" for d in
        (settings.servers_dir, settings.environments_dir, settings.workspaces_dir)]
for d in dirs:
    d.mkdir(parents=True)
    (d / "file").write_text(token)
source = Source(kind="git", location="https://example.org/calc.git", original="calc")
workspace = Workspace(source=source, path=dirs[2], commit="c" * 40)
environment = Environment(ok=True, strategy="source", python="3.11", seconds=0.0,
                          python_path=dirs[1] / "bin" / "python", venv=dirs[1])
specs = [ToolSpec(name=n, description=n, target=f"calc:{n}", parameters=[])
         for n in ("add", "mean")]
evidence = [ToolEvidence(name=s.name, target=s.target, status="passed",
                         evidence=Evidence(arguments={})) for s in specs]
report = ConversionReport(server="calc", source="calc", status="success")
register(settings, report, workspace, environment, dirs[0], specs, evidence)
"""
