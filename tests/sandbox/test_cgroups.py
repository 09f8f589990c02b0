"""cgroup v2 limits per sandboxed child: real children, real groups, where the machine has them.

The limit tests need a writable unified hierarchy at /sys/fs/cgroup whose group offers the
memory and pids controllers; elsewhere they skip and say so. The supervisor's mechanics
(enter before exec, leftovers killed, group removed) run on any writable cgroup v2 mount,
such as the controller-less ``unified`` one of a hybrid machine. The fallback runs anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from backends import require_backend

from metaserver.sandbox import cgroups, get_sandbox
from metaserver.sandbox.base import Policy, kill_tree
from metaserver.settings import SandboxSettings

pytestmark = pytest.mark.integration

EAT = """
import sys
block = bytearray({mb} * 1024 * 1024)
block[::4096] = b"x" * len(block[::4096])
print("allocated", flush=True)
"""

BOMB = """
import os, sys, time
held = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    held += 1
print(held, flush=True)
sys.stdin.readline()
"""


def _ours(parent: Path) -> list[str]:
    """Our children's groups still under ``parent`` (not the leaf this process may sit in)."""
    prefix = f"metaserver-{os.getpid()}-"
    return [p.name for p in parent.iterdir() if p.name.startswith(prefix) and p.name[-4:] != "self"]


def _usable_or_skip() -> Path:
    parent = cgroups.usable()
    if parent is None:
        pytest.skip(
            "no writable cgroup v2 with memory and pids here (a v1 or hybrid hierarchy, or no "
            "delegation): children are limited by rlimits only"
        )
    return parent


@pytest.fixture
def fresh_detection() -> object:
    cgroups._usable.cache_clear()
    yield None
    cgroups._usable.cache_clear()


def test_no_cgroup_v2_falls_back_to_rlimits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fresh_detection: object
) -> None:
    caplog.set_level(logging.DEBUG, logger="metaserver.sandbox.cgroups")
    assert cgroups.usable(tmp_path) is None
    assert cgroups.wrap(["/bin/true"], SandboxSettings(), tmp_path) == (["/bin/true"], None)
    lines = [r.getMessage() for r in caplog.records if "rlimits only" in r.getMessage()]
    assert len(lines) == 1 and "not a cgroup v2" in lines[0], lines
    assert cgroups.usable(tmp_path) is None  # found once: no second line
    assert len([r for r in caplog.records if "rlimits only" in r.getMessage()]) == 1


def test_a_group_that_offers_no_memory_or_pids_falls_back(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fresh_detection: object,
) -> None:
    """A cgroup v2 mount whose group offers other controllers only (as the controller-less
    ``unified`` mount of a hybrid machine, or a container given cpu and io alone)."""
    caplog.set_level(logging.DEBUG, logger="metaserver.sandbox.cgroups")
    parent = _writable_cgroup2()
    if parent is not None and "memory" not in (parent / "cgroup.controllers").read_text():
        root = parent  # a real one: this machine's
        monkeypatch.setattr(cgroups, "PROC_CGROUP", _proc_file(tmp_path, "/"))
    else:
        root = tmp_path / "cg"
        root.mkdir()
        (root / "cgroup.controllers").write_text("cpu io pids\n")
        monkeypatch.setattr(cgroups, "PROC_CGROUP", _proc_file(tmp_path, "/"))
    assert cgroups.usable(root) is None
    assert any("does not offer memory" in r.getMessage() for r in caplog.records)
    assert [p for p in root.iterdir() if p.name.startswith("metaserver-")] == []


def _proc_file(tmp_path: Path, group: str) -> Path:
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(f"0::{group}\n")
    return proc


async def test_a_child_runs_with_rlimits_when_cgroups_are_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_detection: object
) -> None:
    require_backend("bwrap")
    monkeypatch.setattr(cgroups, "ROOT", tmp_path / "not-cgroup")
    (tmp_path / "not-cgroup").mkdir()
    sandbox = get_sandbox(SandboxSettings(backend="bwrap", memory_mb=512))
    command = sandbox.wrap(
        ["/bin/sh", "-c", "ulimit -v"], Policy(workdir=tmp_path / "w", timeout=30)
    )
    assert command.cgroup is None and str(cgroups.ENTER) not in command.argv
    result = await sandbox.run(
        ["/bin/sh", "-c", "ulimit -v"], Policy(workdir=tmp_path / "w", timeout=30)
    )
    assert result.ok, result.stderr
    assert result.stdout.strip() == str(512 * 1024)  # the address-space rlimit, in KiB


def _writable_cgroup2() -> Path | None:
    """Our group in any cgroup v2 mount we may make groups in (controllers or not)."""
    own = ""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            own = line[3:].strip()
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            group = Path(fields[1]) / own.lstrip("/")
            if group.is_dir() and os.access(group, os.W_OK):
                return group
    return None


def test_the_supervisor_enters_before_exec_and_removes_the_group() -> None:
    parent = _writable_cgroup2()
    if parent is None:
        pytest.skip("no writable cgroup v2 mount here")
    group = parent / f"metaserver-{os.getpid()}-mechanics"
    # The child reports its own group, leaves a process behind, and exits 3.
    script = 'grep "^0::" /proc/self/cgroup; sleep 60 & exit 3'
    enter = [sys.executable, "-I", "-S", str(cgroups.ENTER), str(group), "as=0", "--"]
    result = subprocess.run(
        [*enter, "/bin/sh", "-c", script], capture_output=True, timeout=60, text=True
    )
    assert result.returncode == 3, result.stderr
    assert result.stdout.strip().endswith(f"/{group.name}"), result.stdout
    assert not group.exists()  # the sleep left behind was killed, the group removed
    # A group that cannot be made: the child still runs, with the address-space rlimit.
    fallback = [sys.executable, "-I", "-S", str(cgroups.ENTER), "/nonexistent/g", "as=268435456"]
    result = subprocess.run(
        [*fallback, "--", "/bin/sh", "-c", "ulimit -v"], capture_output=True, timeout=60, text=True
    )
    assert result.returncode == 0 and result.stdout.strip() == str(256 * 1024)


@pytest.mark.parametrize("backend", ["bwrap", "process"])
async def test_memory_beyond_memory_max_kills_only_that_child(backend: str, tmp_path: Path) -> None:
    parent = _usable_or_skip()
    require_backend(backend)
    sandbox = get_sandbox(SandboxSettings(backend=backend, memory_mb=128))  # type: ignore[arg-type]
    command = sandbox.wrap(
        [sys.executable, "-I", "-c", "pass"], Policy(workdir=tmp_path / "p", timeout=60)
    )
    assert command.cgroup is not None and str(cgroups.ENTER) in command.argv
    assert not any(a.startswith(("--as=", "as=")) for a in command.argv[command.argv.index("--") :])
    greedy, modest = await asyncio.gather(
        sandbox.run(
            [sys.executable, "-I", "-c", EAT.format(mb=512)],
            Policy(workdir=tmp_path / "g", timeout=60),
        ),
        sandbox.run(
            [sys.executable, "-I", "-c", EAT.format(mb=32)],
            Policy(workdir=tmp_path / "m", timeout=60),
        ),
    )
    assert not greedy.ok and "allocated" not in greedy.stdout, greedy
    assert greedy.returncode in (137, -9), greedy  # SIGKILL by the OOM killer, not MemoryError
    assert modest.ok and modest.stdout.strip() == "allocated", modest.stderr
    assert _ours(parent) == []


async def test_a_fork_bomb_is_capped_at_pids_max(tmp_path: Path) -> None:
    """As root without a uid switch (the process backend where the sandbox uid cannot reach
    the work directory) no per-uid limit applies: only the child's group stops the bomb."""
    parent = _usable_or_skip()
    require_backend("process")
    if os.geteuid() != 0:
        pytest.skip("the per-uid process limit binds first when metaserver is not root")
    sandbox = get_sandbox(SandboxSettings(backend="process", processes=24))
    command = sandbox.wrap(
        [sys.executable, "-I", "-c", BOMB], Policy(workdir=tmp_path / "b", timeout=60)
    )
    assert command.cgroup is not None
    process = await asyncio.create_subprocess_exec(
        *command.argv, cwd=command.cwd, env=command.env, start_new_session=True,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None and process.stdin is not None
        held = int(await asyncio.wait_for(process.stdout.readline(), 60))
        pids_max = int((command.cgroup / "pids.max").read_text())
        assert pids_max == 24 + cgroups.SANDBOX_TASKS
        assert 0 < held < pids_max
        events = dict(
            line.split() for line in (command.cgroup / "pids.events").read_text().splitlines()
        )
        assert int(events["max"]) > 0  # the group refused a fork
        assert int((command.cgroup / "pids.current").read_text()) <= pids_max
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)
    finally:
        kill_tree(process.pid)
        await process.wait()
    assert not command.cgroup.exists()
    assert _ours(parent) == []


def test_groups_of_ended_metaserver_processes_are_swept() -> None:
    parent = _writable_cgroup2()
    if parent is None:
        pytest.skip("no writable cgroup v2 mount here")
    dead_pid = subprocess.Popen(["/bin/true"])  # a pid that ran and ended
    dead_pid.wait()
    stale = parent / f"metaserver-{dead_pid.pid}-0"
    live = parent / f"metaserver-{os.getpid()}-sweeptest"  # not a name the sweep knows
    mine = parent / f"metaserver-{os.getpid()}-0"
    for group in (stale, live, mine):
        group.mkdir(exist_ok=True)
    try:
        assert cgroups.sweep_stale(parent) == [stale]
        assert not stale.exists() and live.exists() and mine.exists()
    finally:
        for group in (stale, live, mine):
            with contextlib.suppress(OSError):
                group.rmdir()
