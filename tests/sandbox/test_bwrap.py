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


HOG = """
import os, time
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
time.sleep(60)
"""

FORK = "import os\npid = os.fork()\nif pid == 0: os._exit(0)\nos.waitpid(pid, 0)\nprint('forked')"


async def test_a_fork_bomb_exhausts_only_its_own_tenant(tmp_path: Path) -> None:
    """The process limit is counted per uid: a server that spends it all must not leave
    other servers unable to start a process (or a thread)."""
    import asyncio
    import os

    from metaserver.sandbox.base import kill_tree
    from metaserver.sandbox.identity import for_tenant, sandbox_identity

    require_backend("bwrap")
    if os.geteuid() != 0:
        pytest.skip("tenants get uids of their own only when metaserver is root")
    limits = SandboxSettings(backend="bwrap", processes=24)
    base = sandbox_identity(limits.uid, limits.gid)
    assert for_tenant(base, "bomb", 1000).uid != for_tenant(base, "neighbour", 1000).uid
    sandbox = get_sandbox(limits)

    def policy(name: str, tenant: str) -> Policy:
        return Policy(workdir=tmp_path / name, timeout=30, tenant=tenant)

    hog = sandbox.wrap([sys.executable, "-I", "-c", HOG], policy("hog", "bomb"))
    process = await asyncio.create_subprocess_exec(
        *hog.argv, cwd=hog.cwd, env=hog.env, stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        held = int(await asyncio.wait_for(process.stdout.readline(), 30))
        assert 0 < held < 24
        neighbour = await sandbox.run(
            [sys.executable, "-I", "-c", FORK], policy("neighbour", "neighbour")
        )
        assert neighbour.ok and neighbour.stdout.strip() == "forked", neighbour.stderr
        # The same tenant is out of processes: the limit is real.
        same = await sandbox.run([sys.executable, "-I", "-c", FORK], policy("same", "bomb"))
        assert not same.ok and "forked" not in same.stdout
    finally:
        kill_tree(process.pid)
        await process.wait()


READ_ALL = """
import sys
for path in sys.stdin.read().split():
    with open(path) as handle:
        print(path, len(handle.read()))
"""


async def test_a_hidden_file_reads_empty_at_its_own_path_and_its_alias(tmp_path: Path) -> None:
    require_backend("bwrap")
    sandbox = get_sandbox(SandboxSettings(backend="bwrap"))
    served = tmp_path / "served"
    (served / "work").mkdir(parents=True)
    for name in ("secret.txt", "kept.txt"):
        (served / name).write_text("/the/home/path\n")
    policy = Policy(
        workdir=served / "work",
        timeout=30,
        readable=(served,),
        aliases=((served, Path("/server")), (served / "work", Path("/server/work"))),
        hidden=(served / "secret.txt", served / "absent.txt"),
    )
    paths = [str(served / "secret.txt"), str(served / "kept.txt")]
    paths += ["/server/secret.txt", "/server/kept.txt"]
    # On stdin, which is not rewritten to neutral paths as argv is.
    stdin = "\n".join(paths).encode()
    result = await sandbox.run([sys.executable, "-I", "-c", READ_ALL], policy, stdin=stdin)
    assert result.ok, result.stderr
    sizes = dict(line.rsplit(" ", 1) for line in result.stdout.splitlines())
    assert [sizes[p] for p in paths] == ["0", "15", "0", "15"], sizes
    assert (served / "secret.txt").read_text() == "/the/home/path\n"  # the host's untouched
