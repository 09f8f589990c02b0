"""Processes that share one home: two `metaserver convert` of one source at once (issue 28).

Each conversion used to delete the other's directories as "unregistered leftovers", so the
registry kept a version whose files were gone. Now a conversion of a server waits for the
one in progress (locks under the home), cleanup spares live conversions, and the second
conversion of the same commit keeps the first one's version id. A killed conversion's
directories go with the next sweep, whichever server it registers.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo

from metaserver.registry import Registry
from metaserver.registry.files import owned_paths, version_dirs
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend  # the backend under test
    env["METASERVER_HOME"] = str(home)
    return env


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [METASERVER, *args], capture_output=True, text=True, env=_env(home), timeout=300
    )


def test_two_conversions_of_one_source_at_once_leave_every_version_whole(
    tmp_path: Path,
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    processes = [
        subprocess.Popen(
            [METASERVER, "convert", "--json", str(repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(home),
        )
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=1200) for process in processes]
    for process, (stdout, stderr) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, stderr[-2000:]
        assert json.loads(stdout)["status"] == "success"

    settings = Settings(home=home)
    registry = Registry(settings.registry_path)
    versions = registry.versions("calcpack")
    # One commit, one version: the second conversion kept the first one's id.
    assert len(versions) == 1
    for record in versions:
        for path in owned_paths(settings, record):
            assert path.is_dir(), path
        called = _cli(home, "call", record.ref, "add", '{"a": 40, "b": 2}', "--json")
        assert called.returncode == 0, called.stdout + called.stderr
        assert "42" in called.stdout
    with sqlite3.connect(settings.registry_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    used = {path for record in versions for path in owned_paths(settings, record)}
    for parent in version_dirs(settings):
        orphans = [p for p in parent.iterdir() if p not in used] if parent.is_dir() else []
        assert orphans == [], orphans

    # And once more, alone: the same commit keeps its version id.
    again = _cli(home, "convert", "--json", str(repo))
    assert again.returncode == 0, again.stderr[-2000:]
    assert [r.version_id for r in registry.versions("calcpack")] == [versions[0].version_id]
    assert registry.get("calcpack").output_dir != versions[0].output_dir
    pinned = _cli(home, "call", versions[0].ref, "add", '{"a": 1, "b": 2}', "--json")
    assert pinned.returncode == 0 and "3" in pinned.stdout


def test_a_killed_conversion_leaves_nothing_once_another_server_registers(
    tmp_path: Path,
) -> None:
    # Issue 28's soak: a batch killed at its timeout left 4 directories, which only the next
    # conversion of that same name swept. Its lease died with it: any sweep takes them.
    home = tmp_path / "home"
    settings = Settings(home=home)
    killed = subprocess.Popen(
        [METASERVER, "convert", "--json", str(make_calc_repo(tmp_path / "calc"))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(home),
        start_new_session=True,  # its tools too: nothing writes into its directories after
    )
    deadline = time.monotonic() + 600
    while not _entries(settings, "calcpack-") and time.monotonic() < deadline:
        assert killed.poll() is None, "the conversion ended before it could be killed"
        time.sleep(0.1)
    left = _entries(settings, "calcpack-")
    assert left, "the conversion made no directory in time"
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait()

    other = make_calc_repo(tmp_path / "other", name="otherpack", package="otherpack")
    done = _cli(home, "convert", "--json", str(other))
    assert done.returncode == 0, done.stderr[-2000:]
    registry = Registry(settings.registry_path)
    assert [s.name for s in registry.summaries()] == ["otherpack"]
    used = {p for r in registry.versions("otherpack") for p in owned_paths(settings, r)}
    entries = [p for parent in version_dirs(settings) if parent.is_dir() for p in parent.iterdir()]
    assert sorted(p for p in entries if p not in used) == [], "orphans of the killed conversion"


def _entries(settings: Settings, prefix: str) -> list[Path]:
    return [
        path
        for parent in version_dirs(settings)
        if parent.is_dir()
        for path in parent.iterdir()
        if path.name.lstrip(".").startswith(prefix)
    ]
