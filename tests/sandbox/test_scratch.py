"""The seccomp and proxy directories under the temporary directory never outlive their owner.

Real processes with their own ``TMPDIR``: one that exits, one ended by SIGTERM in the middle
of a real conversion, one that finds a dead owner's directories when it starts.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import require_backend
from fixture_repos import make_calc_repo

from metaserver.sandbox.scratch import owned_tempdir, sweep_stale

MAKE_BOTH = """
from metaserver.sandbox import seccomp
from metaserver.sandbox.proxy import shared_proxy
print(seccomp.filter_file().parent, flush=True)
print(shared_proxy(frozenset({("pypi.org", 443)})).directory, flush=True)
"""


@pytest.fixture
def tmp() -> Iterator[Path]:
    """A TMPDIR of its own, short: a unix socket's path must fit in 108 bytes."""
    directory = Path(tempfile.mkdtemp(prefix="ms-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _ours(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("metaserver-"))


def _env(tmp: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp), "METASERVER_HOME": str(home)}


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_a_process_that_exits_leaves_nothing(tmp_path: Path, tmp: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MAKE_BOTH],
        env=_env(tmp, tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    made = done.stdout.split()
    assert len(made) == 2 and all(Path(p).parent == tmp for p in made), made
    assert _ours(tmp) == []


def test_stale_directories_of_dead_owners_are_swept_at_start(tmp_path: Path, tmp: Path) -> None:
    dead = _dead_pid()
    stale = [tmp / f"metaserver-seccomp-{dead}-abc123", tmp / f"metaserver-proxy-{dead}-x_y"]
    alive = tmp / f"metaserver-proxy-{os.getpid()}-live1"  # this test's own: still running
    other = tmp / "metaserver-hostile-1234"  # not the sandbox's: untouched
    for directory in [*stale, alive, other]:
        directory.mkdir()
        (directory / "filter.bpf").write_bytes(b"")
    done = subprocess.run(
        [sys.executable, "-c", MAKE_BOTH],
        env=_env(tmp, tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert _ours(tmp) == sorted([alive.name, other.name])


def test_sweep_keeps_what_a_running_owner_holds(tmp_path: Path) -> None:
    directory = owned_tempdir("seccomp")
    assert directory.name.startswith(f"metaserver-seccomp-{os.getpid()}-")
    assert directory not in sweep_stale(directory.parent)
    assert directory.is_dir()


@pytest.mark.integration
def test_sigterm_during_a_conversion_leaves_nothing(tmp_path: Path, tmp: Path) -> None:
    require_backend("bwrap")
    repo = make_calc_repo(tmp_path / "calc")
    process = subprocess.Popen(
        [sys.executable, "-m", "metaserver.cli", "convert", str(repo)],
        env=_env(tmp, tmp_path / "home"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while not any(name.startswith("metaserver-proxy-") for name in _ours(tmp)):
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the install never started its proxy"
            time.sleep(0.2)
        assert any(name.startswith(f"metaserver-seccomp-{process.pid}-") for name in _ours(tmp))
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGTERM, stderr
    assert _ours(tmp) == [], "a clean SIGTERM removes the seccomp and proxy directories"
