"""The bwrap backend, checked directly: identity, capabilities, seccomp, network, files, limits."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from backends import require_backend

from metaserver.sandbox import get_sandbox
from metaserver.sandbox.base import Policy
from metaserver.settings import SandboxSettings

pytestmark = pytest.mark.integration

PROBE = """
import os, socket, ctypes
status = dict(l.split(":", 1) for l in open("/proc/self/status"))
print("uid", os.getuid())
print("capeff", status["CapEff"].strip())
print("seccomp", status["Seccomp"].strip())
print("root", os.path.exists(os.path.expanduser("~root") + "/.bashrc"))
libc = ctypes.CDLL(None, use_errno=True)
print("userns", libc.unshare(0x10000000))
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2); print("net open")
except OSError as e:
    print("net", e.errno)
"""


async def test_child_is_unprivileged_and_isolated(tmp_path: Path) -> None:
    require_backend("bwrap")
    sandbox = get_sandbox(SandboxSettings(backend="bwrap"))
    result = await sandbox.run(
        [sys.executable, "-I", "-c", PROBE], Policy(workdir=tmp_path / "w", timeout=30)
    )
    assert result.ok, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["uid"] != "0"
    assert lines["capeff"] == "0000000000000000"
    assert lines["root"] == "False"
    assert lines["userns"] == "-1"
    assert lines["net"] in ("101", "113")  # ENETUNREACH / EHOSTUNREACH
    if lines["seccomp"] != "2":
        pytest.fail("no seccomp filter: is libseccomp2 installed?")


async def test_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    require_backend("bwrap")
    sandbox = get_sandbox(SandboxSettings(backend="bwrap"))
    marker = tmp_path / "w" / "alive"
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        f"    os.setsid(); time.sleep(4); open({str(marker)!r}, 'w').write('x'); os._exit(0)\n"
        "while True: pass\n"
    )
    result = await sandbox.run(
        [sys.executable, "-I", "-c", code], Policy(workdir=marker.parent, timeout=2)
    )
    assert result.timed_out
    import asyncio

    await asyncio.sleep(4)
    assert not marker.exists()


async def test_killing_the_parent_reaches_nothing_outside(tmp_path: Path) -> None:
    """A child that SIGKILLs its parent and every process it can see harms only its sandbox."""
    import asyncio
    import os

    require_backend("bwrap")
    sandbox = get_sandbox(SandboxSettings(backend="bwrap"))
    attack = (
        "import os, signal\n"
        "parent = os.getppid()\n"
        "for target in (parent, -1):\n"
        "    try:\n"
        "        os.kill(target, signal.SIGKILL); print('sent', target, flush=True)\n"
        "    except OSError as e:\n"
        "        print('refused', target, e.errno, flush=True)\n"
    )
    bystander = "import time; time.sleep(2); print('still here')"
    attacked, neighbour = await asyncio.gather(
        sandbox.run(
            [sys.executable, "-I", "-c", attack], Policy(workdir=tmp_path / "a", timeout=20)
        ),
        sandbox.run(
            [sys.executable, "-I", "-c", bystander], Policy(workdir=tmp_path / "b", timeout=20)
        ),
    )
    assert not attacked.timed_out  # it ended (or was ended) instead of hanging
    # Its parent is the sandbox's init, which refuses the signal; nothing else is visible.
    assert attacked.ok and "sent" not in attacked.stdout, attacked.stdout
    assert neighbour.ok and neighbour.stdout.strip() == "still here", neighbour
    os.kill(os.getpid(), 0)  # and metaserver's own process is untouched
