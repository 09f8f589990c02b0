"""The one interface through which repository code is run.

Every child that executes untrusted code (installs, probes, generated servers) is started
through a ``Sandbox``: either by :meth:`Sandbox.run` (run to completion, output captured) or
by :meth:`Sandbox.wrap` (a command line for a long-lived stdio child such as an MCP server).
Backends differ only in how they confine the command; the stages never know which one ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from metaserver.sandbox import cgroups
from metaserver.settings import SandboxSettings

# Variables a child may inherit from the host when it needs the network (installs only):
# proxies and certificate bundles, never credentials.
NETWORK_PASSTHROUGH = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
)


PolicyKind = Literal["install", "probe", "serve", "run"]


@dataclass(frozen=True)
class Policy:
    """What one child may do.

    Attributes:
        workdir: the child's working directory; always writable, and its ``HOME``.
        timeout: wall-clock seconds before :meth:`Sandbox.run` kills the whole tree.
        network: ``True`` means *the package index only*: confining backends route the
            child's traffic through an allow-list proxy that admits only the index hosts
            named in ``env`` (``UV_DEFAULT_INDEX``, ``UV_INDEX``, ...). Never the open net.
        readable: extra paths the child may read (bound read-only at the same path).
        writable: paths the child may write besides ``workdir``.
        env: variables added to the cleared environment.
        kind: ``install`` children may write the package cache named by ``UV_CACHE_DIR``
            (a cache of the sandbox's own, see :mod:`metaserver.sandbox.identity`); for
            every other kind the cache is neither readable nor writable.
        internet: the host's network, unfiltered (no network namespace of its own). Only for
            an existing MCP server the operator added with ``--allow-network``
            (``metaserver add``); never for repository code, and never with ``network``.
        tenant: whom the child acts for (a generated server's directory name). Children of
            one tenant share a uid of their own; different tenants never share one, so one
            tenant's process limit, processes and files are out of another's reach. None:
            the sandbox's own uid (installs, which share its package cache).
        aliases: ``(host path, neutral path)`` pairs: a confining backend also shows each
            host path (readable, or the work directory's part of it) at the neutral path,
            and names it so in the command line and environment, so that no path of the
            home reaches the child (the work directory itself is seen at ``/work``). The
            ``process`` backend (no isolation) ignores them: its child sees host paths.
        hidden: files of the readable trees the child must not read (the operator's copies
            of host paths: a server's ``README.md`` and ``mcp.json``): a confining backend
            shows each, at every path it is seen at, as an empty file. Only existing files.
    """

    workdir: Path
    timeout: float
    network: bool = False
    readable: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    kind: PolicyKind = "run"
    tenant: str | None = None
    internet: bool = False
    aliases: tuple[tuple[Path, Path], ...] = ()
    hidden: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Command:
    """A command line ready to start: argv, a complete environment, a working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    kill_argv: list[str] | None = None  # also run on a timeout (a container to stop)
    cgroup: Path | None = None  # the child's own cgroup, removed when it ends (cgroups.py)


@dataclass(frozen=True)
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def tail(self, lines: int = 20) -> str:
        """The last lines of stderr (or stdout), where the decisive error usually is."""
        text = self.stderr.strip() or self.stdout.strip()
        return "\n".join(text.splitlines()[-lines:])


def base_environment(policy: Policy, path_dirs: Sequence[Path] = ()) -> dict[str, str]:
    """A cleared environment: no host variables but the few a child needs, and no secrets."""
    path = [str(p) for p in path_dirs] + ["/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "PATH": os.pathsep.join(path),
        "HOME": str(policy.workdir),
        "TMPDIR": str(policy.workdir),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONNOUSERSITE": "1",
    }
    if policy.network:
        env.update({k: v for k in NETWORK_PASSTHROUGH if (v := os.environ.get(k))})
    env.update(policy.env)
    return env


class Sandbox(ABC):
    """A way to run untrusted commands confined by a :class:`Policy`."""

    name: str = "abstract"

    def __init__(self, limits: SandboxSettings) -> None:
        self.limits = limits

    @abstractmethod
    def wrap(self, argv: Sequence[str], policy: Policy) -> Command:
        """Return the command that runs ``argv`` confined by ``policy``."""

    async def run(
        self, argv: Sequence[str], policy: Policy, stdin: bytes | None = None
    ) -> RunResult:
        """Run ``argv`` to completion under ``policy``; kill its whole tree on timeout."""
        command = self.wrap(argv, policy)
        policy.workdir.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        process = await asyncio.create_subprocess_exec(
            *command.argv,
            cwd=command.cwd,
            env=command.env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills the tree
        )
        timed_out = False
        try:
            out, err = await asyncio.wait_for(process.communicate(stdin), policy.timeout)
        except (TimeoutError, asyncio.CancelledError) as exc:
            timed_out = isinstance(exc, TimeoutError)
            kill_tree(process.pid)
            if command.kill_argv:
                await _run_quietly(command.kill_argv)
            with contextlib.suppress(Exception):
                out, err = await asyncio.wait_for(process.communicate(), 5)
            if not timed_out:
                raise
            out, err = b"", b""
        finally:
            if command.cgroup is not None:
                # Its supervisor removes it, unless a timeout's kill reached the supervisor
                # first: then what is left of the tree dies here, with the group.
                await asyncio.to_thread(cgroups.remove, command.cgroup)
        return RunResult(
            returncode=process.returncode if process.returncode is not None else -9,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            seconds=time.monotonic() - started,
            timed_out=timed_out,
        )


async def _run_quietly(argv: list[str]) -> None:
    with contextlib.suppress(Exception):
        helper = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        await asyncio.wait_for(helper.wait(), 30)


def kill_tree(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (children started with a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
