"""The ``process`` backend: only when named explicitly. Weaker, and says so once.

What it does, each "where possible" (probed once, reported in :attr:`ProcessSandbox.notes`):

* rlimits for CPU time, open files, file size, processes and core dumps, and a cgroup of
  its own for memory and processes where the machine allows (:mod:`metaserver.sandbox.cgroups`;
  elsewhere an address-space rlimit);
* new network and pid namespaces (a user namespace too when not root): no network at all,
  and the whole tree dies with its pid 1, even processes that ``setsid`` away;
* installs reach only the package index, through the same allow-list proxy as bwrap;
* when metaserver is root, the dedicated sandbox uid, *if* every path the child needs is
  reachable by that uid by its host path (there is no mount namespace to expose
  root-only paths through, see :func:`metaserver.sandbox.identity.reachable`);
* ``no_new_privs`` and the seccomp filter.

What it cannot do: hide the file system. The child reads whatever its uid can read, and as
root (when the uid switch is impossible) that is everything. Each such child is logged as a
warning; prefer ``bwrap``.
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from metaserver.sandbox import cgroups, seccomp
from metaserver.sandbox.base import Command, Policy, Sandbox, base_environment
from metaserver.sandbox.identity import (
    Identity,
    for_tenant,
    hand_over,
    package_cache_for,
    reachable,
    sandbox_cache_path,
    sandbox_identity,
)
from metaserver.sandbox.mounts import command_paths
from metaserver.sandbox.proxy import index_hosts, shared_proxy
from metaserver.settings import SandboxSettings

logger = logging.getLogger(__name__)

LAUNCHER = Path(__file__).with_name("launcher.py")
BRIDGE_PORT = 3128
_warned = False


class ProcessSandbox(Sandbox):
    name = "process"

    def __init__(self, limits: SandboxSettings) -> None:
        super().__init__(limits)
        self.identity: Identity = sandbox_identity(limits.uid, limits.gid)
        self.namespaces = namespaces_work()
        self.notes: list[str] = []
        if not self.namespaces:
            self.notes.append("no network or pid namespace: children share the host network")
        if seccomp.filter_file() is None:
            self.notes.append("no seccomp filter")
        global _warned
        if not _warned:  # chosen explicitly, so once per process is enough
            _warned = True
            logger.warning(
                "sandbox: the 'process' backend (METASERVER_SANDBOX__BACKEND=process) does "
                "not hide the file system from repository code; the default backend, auto, "
                "confines it with bubblewrap%s",
                "".join(f"; {note}" for note in self.notes),
            )

    def limit_arguments(self) -> list[str]:
        mb = 1024 * 1024
        # The address space only where no cgroup limits the child's memory (cgroups.py).
        memory = [f"as={self.limits.memory_mb * mb}"] if cgroups.usable() is None else []
        return [
            *memory,
            f"cpu={self.limits.cpu_seconds}",
            f"nofile={self.limits.open_files}",
            f"fsize={self.limits.file_size_mb * mb}",
            f"nproc={self.limits.processes}",
            "core=0",
        ]

    def wrap(self, argv: Sequence[str], policy: Policy) -> Command:
        env = base_environment(policy)
        identity = for_tenant(self.identity, policy.tenant, self.limits.tenant_uids)
        arguments = self.limit_arguments()
        writable = [policy.workdir, *policy.writable]
        prospective = sandbox_cache_path(env, identity) if policy.kind == "install" else None
        needed = writable if prospective is None else [*writable, prospective]
        switch = identity.switch and self._all_reachable(argv, policy, needed, identity)
        # The package cache is the one of the uid the child really runs as, so that a child
        # left running as metaserver's own uid never writes into the sandbox uid's cache.
        runner = identity if switch else _ours()
        cache = package_cache_for(policy.kind, env, runner)
        if cache is not None:
            writable.append(cache)
        for path in writable:
            hand_over(
                path,
                identity if switch else _keep(identity),
                with_contents=policy.tenant is not None,
            )
        if switch:
            arguments += [f"uid={identity.uid}", f"gid={identity.gid}"]
        elif identity.switch:
            logger.warning(
                "sandbox: %s runs as root: a path it needs is not reachable by uid %d "
                "(use the bwrap backend, or paths outside root-only directories)",
                Path(argv[0]).name,
                identity.uid,
            )
        if self.namespaces:
            arguments.append("ns=1")
            if policy.internet:
                arguments.append("net=host")  # a pid namespace, the host's network
            if policy.network:
                for key in list(env):
                    if key.lower() in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
                        del env[key]
                proxy = shared_proxy(index_hosts(policy.env))
                arguments.append(f"bridge={proxy.socket_path}")
                url = f"http://127.0.0.1:{BRIDGE_PORT}"
                env.update({"HTTPS_PROXY": url, "HTTP_PROXY": url, "ALL_PROXY": url})
        filter_file = seccomp.filter_file()
        if filter_file is not None:
            arguments.append(f"seccomp={filter_file}")
        launcher = [sys.executable, "-I", str(LAUNCHER), *arguments, "--"]
        full, group = cgroups.wrap([*launcher, *argv], self.limits)
        return Command(argv=full, env=env, cwd=policy.workdir, cgroup=group)

    def _all_reachable(
        self, argv: Sequence[str], policy: Policy, writable: list[Path], identity: Identity
    ) -> bool:
        needed = [*command_paths(argv), *policy.readable]
        return all(reachable(p, identity) for p in needed) and all(
            reachable(p, identity, write=True) for p in writable
        )


def _ours() -> Identity:
    return Identity(uid=os.geteuid(), gid=os.getegid(), switch=False)


def _keep(identity: Identity) -> Identity:
    return Identity(uid=identity.uid, gid=identity.gid, switch=False)


@functools.cache
def namespaces_work() -> bool:
    """Whether the launcher can make network and pid namespaces here."""
    try:
        result = subprocess.run(
            [sys.executable, "-I", str(LAUNCHER), "ns=1", "--", "/bin/true"],
            capture_output=True,
            timeout=20,
            env={"PATH": os.defpath},
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0
