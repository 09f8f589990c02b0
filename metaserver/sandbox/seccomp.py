"""The seccomp filter every confined child runs under, as classic BPF.

Namespaces and a switched uid already deny most of the kernel's dangerous interfaces; the
filter removes the rest of the attack surface that no library, build or MCP server needs:
debugging other processes, loading BPF or kernel modules, mounting, keyrings, io_uring,
perf, and exotic socket families (ARCHITECTURE.md, "Sandbox facts":
measured with this very list).

It also forbids creating namespaces (``unshare``, ``setns`` and ``clone`` with any
``CLONE_NEW*`` flag). That matters when metaserver is root: bwrap then runs without a user
namespace (so that it can bind root-only interpreters, see :mod:`metaserver.sandbox.bwrap`)
and its ``--disable-userns`` is not available, so the filter is what stops nested user
namespaces. ``clone3`` passes its flags in memory a filter cannot read, so it answers
``ENOSYS``; glibc then falls back to ``clone``, whose flags the filter does check.

The filter is generated with ``pyseccomp`` (libseccomp) once per process and written to a
file that bwrap reads through ``--seccomp FD``, in a directory removed when this process ends
(:mod:`metaserver.sandbox.scratch`). Without libseccomp the sandbox still runs,
with a logged warning, and :func:`filter_file` returns ``None``.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import tempfile
from pathlib import Path

from metaserver.sandbox.scratch import owned_tempdir

logger = logging.getLogger(__name__)

DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "mount",
    "umount2",
    "pivot_root",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "swapon",
    "swapoff",
    "reboot",
    "open_by_handle_at",
    "name_to_handle_at",
    "unshare",
    "setns",
    "acct",
    "quotactl",
    "iopl",
    "ioperm",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
)
# AF_NETLINK, AF_PACKET, AF_VSOCK and friends: nothing a Python library needs.
DENIED_SOCKET_FAMILIES = (16, 17, 40, 38, 43)  # netlink, packet, vsock, alg, xdp
# Every CLONE_NEW* flag: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000
CLONE_NEW_FLAGS |= 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080


def build_filter() -> bytes:
    """The filter as BPF bytes. Raises ImportError/OSError where libseccomp is missing."""
    import pyseccomp as sc  # type: ignore[import-untyped]

    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        except Exception:  # a name this libseccomp does not know on this architecture
            logger.debug("seccomp: no syscall %s here", name)
    for family in DENIED_SOCKET_FAMILIES:
        rules.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socket", sc.Arg(0, sc.EQ, family))
    for flag in _bits(CLONE_NEW_FLAGS):
        rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(mask.bit_length()) if mask & (1 << i)]


@functools.cache
def filter_file() -> Path | None:
    """A file holding the filter (readable by everyone), or None without libseccomp."""
    try:
        program = build_filter()
    except Exception as exc:
        logger.warning(
            "sandbox: no seccomp filter (%s: %s); children run without one. "
            "Install libseccomp2 to restore it.",
            type(exc).__name__,
            exc,
        )
        return None
    path = owned_tempdir("seccomp") / "filter.bpf"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(program)
    return path
