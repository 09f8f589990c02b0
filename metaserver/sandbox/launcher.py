"""The ``process`` backend's supervisor: limits, namespaces, uid switch, seccomp, exec.

Run as ``python -I launcher.py KEY=VALUE... -- ARGV``; it imports nothing of metaserver (and
nothing outside the standard library), so it works with any Python 3 interpreter. In order:

1. rlimits (``as``, ``cpu``, ``nofile``, ``fsize``, ``nproc``, ``core``) on itself, inherited;
2. ``ns=1``: new network and pid namespaces (plus a user namespace when not root). The
   launcher stays outside as the supervisor; its forked child is pid 1 inside, so when that
   child exits or the supervisor is killed (``PR_SET_PDEATHSIG``), every process the
   repository started dies with it, even those that called ``setsid`` to escape a process
   group kill. Loopback is brought up; with ``bridge=SOCKET`` a root-owned bridge to the
   host's index proxy listens on 127.0.0.1:3128 (the install's only way out); with
   ``net=host`` (an added server allowed the network) only the pid namespace is new;
3. ``uid=U gid=G``: groups cleared, gid and uid switched (only when run as root);
4. ``no_new_privs`` and, with ``seccomp=FILE``, the BPF filter of ``seccomp.py``;
5. exec of ARGV.
"""

import ctypes
import fcntl
import importlib.util
import os
import resource
import signal
import socket
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
BRIDGE_PORT = 3128
BRIDGE = Path(__file__).with_name("bridge.py")
# The cgroup supervisor's wait, shared (this process imports nothing of metaserver by name).
CGROUP_ENTER = Path(__file__).with_name("cgroup_enter.py")
LIMITS = {
    "as": resource.RLIMIT_AS,
    "cpu": resource.RLIMIT_CPU,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize": resource.RLIMIT_FSIZE,
    "nproc": resource.RLIMIT_NPROC,
    "core": resource.RLIMIT_CORE,
}

libc = ctypes.CDLL(None, use_errno=True)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def set_limits(pairs: dict[str, str]) -> None:
    for key, table_key in LIMITS.items():
        if key not in pairs:
            continue
        limit = int(pairs[key])
        _soft, hard = resource.getrlimit(table_key)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(table_key, (limit, limit))


def unshare(flags: int) -> None:
    if libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), "unshare failed")


def map_own_ids(uid: int, gid: int) -> None:
    """In a new user namespace, keep our own uid and gid (no root inside)."""
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{gid} {gid} 1")


def loopback_up() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, 0x8913, request))[1]  # SIOCGIFFLAGS
        fcntl.ioctl(sock, 0x8914, struct.pack("16sH", b"lo", flags | 0x1))  # SIOCSIFFLAGS
    finally:
        sock.close()


def load_sibling(path: Path) -> ModuleType:
    """A standard-library module beside this file, by its path: ``python -I`` leaves this
    directory off ``sys.path``."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Loaded before any namespace or uid changes, while this directory is surely readable.
wait_exit_code: Callable[[int], int] = load_sibling(CGROUP_ENTER).wait_exit_code


def start_bridge(path: str) -> None:
    """A root-owned bridge 127.0.0.1:3128 -> the proxy's socket, alive as long as we are."""
    bridge = load_sibling(BRIDGE)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", BRIDGE_PORT))
    listener.listen(64)
    parent = os.getpid()
    if os.fork() != 0:
        listener.close()
        return
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)
    for fd in (0, 1):
        os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    bridge.serve(listener, path)
    os._exit(0)


def load_seccomp(path: str) -> None:
    with open(path, "rb") as f:
        program = f.read()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.addressof(buffer))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")


def confine_and_exec(pairs: dict[str, str], command: list[str]) -> None:
    if "uid" in pairs:
        os.setgroups([])
        os.setgid(int(pairs["gid"]))
        os.setuid(int(pairs["uid"]))
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # set after the uid switch, which clears it
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "no_new_privs refused")
    if "seccomp" in pairs:
        load_seccomp(pairs["seccomp"])
    os.execvpe(command[0], command, os.environ)  # noqa: S606 - exec, not a shell


def supervise(child: int) -> None:
    """Wait for the namespace's pid 1; a termination request kills it (and so its tree)."""

    def stop(signum: int, frame: object) -> None:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    os._exit(wait_exit_code(child))


def main(argv: list[str]) -> None:
    split = argv.index("--")
    pairs = dict(item.split("=", 1) for item in argv[:split])
    command = argv[split + 1 :]
    set_limits(pairs)
    if pairs.get("ns") == "1":
        uid, gid = os.getuid(), os.getgid()
        # net=host: an added server the operator allowed the network keeps the host's.
        own_network = pairs.get("net") != "host"
        flags = (CLONE_NEWNET if own_network else 0) | CLONE_NEWPID
        if uid != 0:
            flags |= CLONE_NEWUSER
        unshare(flags)
        if uid != 0:
            map_own_ids(uid, gid)
        child = os.fork()
        if child != 0:
            supervise(child)
        if own_network:
            loopback_up()
        if "bridge" in pairs:
            start_bridge(pairs["bridge"])
    confine_and_exec(pairs, command)


if __name__ == "__main__":
    main(sys.argv[1:])
