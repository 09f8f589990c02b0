"""cgroup v2 memory and process limits per sandboxed child, where the machine allows them.

rlimits are per process (``RLIMIT_AS``: address space, which over-counts what allocators
reserve and under-counts a tree of processes) or per uid (``RLIMIT_NPROC``, ignored for
root). A cgroup limits a child's whole tree by what it really uses: ``memory.max`` (from
``SandboxSettings.memory_mb``, with ``memory.swap.max`` 0 so the limit is not swapped
around, and ``memory.oom.group`` 1 so an OOM ends the child as a whole) and ``pids.max``
(from ``SandboxSettings.processes``, plus the sandbox's own few tasks). So where cgroups
work, each child (install, probe, validation, serving) runs in a group of its own,
``<our cgroup>/metaserver-<pid>-<n>``, made and removed by the small supervisor
:mod:`metaserver.sandbox.cgroup_enter` that runs in front of the backend's command, and the
address-space rlimit is left out.

Detected, never required (:func:`usable`): the unified hierarchy mounted at
``/sys/fs/cgroup`` (:data:`ROOT`), our own group (``0::`` in ``/proc/self/cgroup``) offering
``memory`` and ``pids`` to its children, and a probe group we could make, limit and remove.
The "no internal processes" rule forbids enabling controllers for the children of a group
that holds processes itself; when our group holds only this process (a container's init, a
delegated service), it moves into a leaf group of its own, ``metaserver-<pid>-self``, first.
Anything else (cgroup v1 or hybrid, read-only, no delegation, no permission) falls back to
the rlimits alone, with one debug line. Groups of metaserver processes that no longer run
are swept at first use, as the temporary directories are (:mod:`metaserver.sandbox.scratch`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import logging
import os
import re
import sys
import threading
import time
from pathlib import Path

from metaserver.sandbox.scratch import pid_running
from metaserver.settings import SandboxSettings

logger = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")
ENTER = Path(__file__).with_name("cgroup_enter.py")
CONTROLLERS = ("memory", "pids")
# The sandbox's own tasks in a child's group (bwrap's two, or the launcher and the namespace
# init), so that repository code may start as many as the per-uid limit allows: for a
# switched uid that limit, a tenant's budget shared by its children, still bites first.
SANDBOX_TASKS = 4
_NAME = re.compile(r"^metaserver-(\d+)-(?:\d+|self|probe)$")

_counter = itertools.count()
_made: set[Path] = set()
_lock = threading.Lock()


def usable(root: Path | None = None) -> Path | None:
    """The group under which children's groups are made, or None: rlimits only.

    ``root`` is where the unified hierarchy is mounted (:data:`ROOT` when None); the answer
    is found once per root and process.
    """
    return _usable(root or ROOT, os.getpid())


@functools.cache
def _usable(root: Path, pid: int) -> Path | None:
    try:
        parent = _prepare(root)
    except OSError as exc:
        logger.debug("sandbox: no cgroup v2 limits per child (%s); rlimits only", exc)
        return None
    logger.debug("sandbox: children get cgroup v2 groups under %s", parent)
    return parent


def _prepare(root: Path) -> Path:
    """Our group, made ready for children's groups; OSError says why it cannot be."""
    if not (root / "cgroup.controllers").is_file():
        raise OSError(f"{root} is not a cgroup v2 (unified) hierarchy")
    own = root / _own_path().lstrip("/")
    if own.name.endswith("-self") and _NAME.match(own.name):
        own = own.parent  # a process forked from one that moved into its leaf
    offered = (own / "cgroup.controllers").read_text().split()
    missing = [c for c in CONTROLLERS if c not in offered]
    if missing:
        raise OSError(f"{own} does not offer {', '.join(missing)} to its children")
    sweep_stale(own)
    _enable(own)
    _probe(own)
    return own


def _own_path() -> str:
    """Our group's path in the unified hierarchy (the ``0::`` line of /proc/self/cgroup)."""
    for line in PROC_CGROUP.read_text().splitlines():
        if line.startswith("0::"):
            return line[3:].strip()
    raise OSError("this process is in no cgroup v2 group")


def _enable(own: Path) -> None:
    """Give the children of ``own`` the memory and pids controllers."""
    control = own / "cgroup.subtree_control"
    enabled = control.read_text().split()
    if all(c in enabled for c in CONTROLLERS):
        return
    request = " ".join(f"+{c}" for c in CONTROLLERS)
    try:
        control.write_text(request)
        return
    except OSError:
        # "No internal processes": only a group without processes of its own may enable
        # controllers for its children. If the only process here is this one, it moves to a
        # leaf group beside its children's; anyone else's process is never moved.
        procs = [int(p) for p in (own / "cgroup.procs").read_text().split()]
        if procs != [os.getpid()]:
            raise
    leaf = own / f"metaserver-{os.getpid()}-self"
    leaf.mkdir(exist_ok=True)
    (leaf / "cgroup.procs").write_text("0")
    try:
        control.write_text(request)
    except OSError:
        (own / "cgroup.procs").write_text("0")  # back where we were, as if never tried
        with contextlib.suppress(OSError):
            leaf.rmdir()
        raise


def _probe(own: Path) -> None:
    """Make, limit and remove one group: proof that children's groups will work."""
    probe = own / f"metaserver-{os.getpid()}-probe"
    probe.mkdir(exist_ok=True)
    try:
        (probe / "memory.max").write_text("max")
        (probe / "pids.max").write_text("max")
    finally:
        probe.rmdir()


def wrap(
    argv: list[str], limits: SandboxSettings, root: Path | None = None
) -> tuple[list[str], Path | None]:
    """``argv`` run in a new group of its own with ``limits``, and that group, when cgroups
    work here; otherwise ``argv`` itself and None (its backend's rlimits then include the
    address space: :func:`usable` is None)."""
    parent = usable(root)
    if parent is None:
        return argv, None
    group = parent / f"metaserver-{os.getpid()}-{next(_counter)}"
    with _lock:
        if len(_made) > 256:  # most were removed by their supervisors: forget those
            _made.difference_update([g for g in _made if not g.exists()])
        _made.add(group)
    memory = limits.memory_mb * 1024 * 1024
    files = {
        "memory.max": str(memory),
        "memory.swap.max": "0",
        "memory.oom.group": "1",
        "pids.max": str(limits.processes + SANDBOX_TASKS),
    }
    options = [f"{name}={value}" for name, value in files.items()]
    # as=: the address-space limit the child gets instead if its group fails after all.
    enter = [sys.executable, "-I", "-S", str(ENTER), str(group), f"as={memory}", *options]
    return [*enter, "--", *argv], group


def remove(group: Path | None) -> None:
    """Kill whatever runs in ``group`` and remove it (its supervisor may have been killed
    before it could); nothing when it is already gone. Bounded to a few seconds."""
    if group is None:
        return
    deadline = time.monotonic() + 5
    while group.is_dir():
        with contextlib.suppress(OSError):
            (group / "cgroup.kill").write_text("1")
        try:
            group.rmdir()
        except FileNotFoundError:
            break
        except OSError:
            if time.monotonic() > deadline:
                logger.debug("sandbox: cgroup %s is still busy; left for the next sweep", group)
                return
            time.sleep(0.02)
    with _lock:
        _made.discard(group)


@atexit.register
def remove_made() -> None:
    """Remove the groups this process made whose supervisors did not (killed first)."""
    with _lock:
        groups = list(_made)
    for group in groups:
        if group.name.startswith(f"metaserver-{os.getpid()}-"):
            remove(group)


def sweep_stale(own: Path) -> list[Path]:
    """Remove the empty groups of metaserver processes that no longer run; what was removed."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in own.iterdir():
            match = _NAME.match(entry.name)
            if match is None or not entry.is_dir() or int(match.group(1)) == os.getpid():
                continue
            if pid_running(int(match.group(1))):
                continue
            # Removed only when empty (rmdir refuses a populated group): a pid that does not
            # run here may run in another pid namespace, and its processes are not ours to kill.
            # Supervisors empty their groups when metaserver dies, so stale ones are empty.
            with contextlib.suppress(OSError):
                entry.rmdir()
                removed.append(entry)
    if removed:
        logger.info("removed %d cgroups of ended metaserver processes", len(removed))
    return removed
