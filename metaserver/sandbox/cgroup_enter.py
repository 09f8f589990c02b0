"""Start one sandboxed child in a cgroup v2 group of its own, and remove the group after it.

Run as ``python -I -S cgroup_enter.py GROUP as=BYTES FILE=VALUE... -- ARGV`` by metaserver's
own uid, in front of the backend's command (:mod:`metaserver.sandbox.cgroups` decides when);
it imports nothing outside the standard library. In order:

1. make ``GROUP`` and write each ``FILE=VALUE`` into it (``memory.max``, ``pids.max``, ...;
   ``memory.swap.max`` and ``memory.oom.group`` are skipped where the kernel lacks them);
2. fork: the child writes itself into ``GROUP/cgroup.procs`` and only then execs ARGV, so
   nothing it runs ever starts outside the group (no race with a pid written from outside);
3. the supervisor waits; a SIGTERM, SIGINT or SIGHUP (or the death of metaserver, by
   ``PR_SET_PDEATHSIG``) kills the whole group; when the child has ended, whatever it left
   in the group is killed (``cgroup.kill``) and the group removed. The exit status is the
   child's (128 + signal when it was killed, 137 after the OOM killer).

When the group cannot be made or entered after all, the child runs anyway, with
``RLIMIT_AS`` set to ``as`` as it would have been without cgroups: a missing cgroup never
stops a child, and never leaves it without a memory limit.
"""

import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
# Files a kernel may lack (no swap accounting; before 4.19): the limit holds without them.
OPTIONAL = ("memory.swap.max", "memory.oom.group")
libc = ctypes.CDLL(None, use_errno=True)


def write(path: str, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def make_group(group: str, files: dict[str, str]) -> bool:
    """Make ``group`` with its limits; False when that is impossible here."""
    try:
        os.mkdir(group, 0o755)
    except FileExistsError:
        pass
    except OSError:
        return False
    for name, value in files.items():
        path = os.path.join(group, name)
        if name in OPTIONAL and not os.path.exists(path):
            continue
        try:
            write(path, value)
        except OSError:
            return False
    return True


def empty_and_remove(group: str) -> None:
    """Kill what is left in ``group`` and remove it (bounded: a few seconds at most)."""
    deadline = time.monotonic() + 5
    while os.path.isdir(group):
        try:
            write(os.path.join(group, "cgroup.kill"), "1")
        except OSError:
            kill_listed(group)
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)


def kill_listed(group: str) -> None:
    """Kernels before 5.14 have no ``cgroup.kill``: SIGKILL every listed process."""
    try:
        with open(os.path.join(group, "cgroup.procs")) as handle:
            pids = [int(line) for line in handle if line.strip()]
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def limit_address_space(limit: int) -> None:
    if limit:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        value = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (value, value))


def run_child(group: str, entered: bool, address_space: int, command: list[str]) -> None:
    if entered:
        try:
            write(os.path.join(group, "cgroup.procs"), "0")  # "0": the writing process
        except OSError:
            entered = False
    if not entered:
        limit_address_space(address_space)
    try:
        os.execvp(command[0], command)  # noqa: S606 - exec, not a shell
    except OSError as exc:
        sys.stderr.write(f"cgroup_enter: cannot run {command[0]}: {exc}\n")
        os._exit(127)


def on_stop(group: str, children: list[int]) -> None:
    """A SIGTERM, SIGINT or SIGHUP kills the whole group (and the child, if not in it)."""

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != supervisor or not children:
            if os.getpid() == supervisor:
                empty_and_remove(group)  # stopped before there was a child to wait for
            os._exit(128 + signum)  # (or the child itself, between fork and exec)
        try:
            write(os.path.join(group, "cgroup.kill"), "1")
        except OSError:
            pass
        for child in children:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass

    supervisor = os.getpid()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)


def supervise(group: str, child: int) -> None:
    # Only the child keeps the standard streams: a reader sees their end when it ends.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    code = wait_exit_code(child)
    empty_and_remove(group)
    os._exit(code)


def wait_exit_code(child: int) -> int:
    """Wait for ``child`` and return its exit code as a shell reports it: the code it exited
    with, or 128 + the signal that ended it. The process backend's launcher.py waits with
    this one too (it loads this file by its path)."""
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def main(argv: list[str]) -> None:
    split = argv.index("--")
    group = argv[0]
    pairs = dict(item.split("=", 1) for item in argv[1:split])
    command = argv[split + 1 :]
    address_space = int(pairs.pop("as", "0"))
    children: list[int] = []
    on_stop(group, children)  # before anything exists that a stop would have to undo
    # Before the fork, so that the child (which loses it at fork) is never without a parent
    # that cleans up: metaserver's death reaches us as SIGTERM, and the group goes with us.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    entered = make_group(group, pairs)
    child = os.fork()
    if child == 0:
        run_child(group, entered, address_space, command)
    children.append(child)
    if not entered:
        empty_and_remove(group)
    supervise(group, child)


if __name__ == "__main__":
    main(sys.argv[1:])
