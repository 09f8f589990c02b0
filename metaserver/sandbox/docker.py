"""The ``docker`` backend: one throw-away container per child, where an engine is reachable.

Containers get ``--network none``, a read-only root, a non-root user (the sandbox uid), all
capabilities dropped, ``no-new-privileges``, the seccomp profile of the engine, memory,
pids, CPU and ulimits, and ``--init`` (so the tree dies with the container). Paths are bound
exactly as bwrap binds them (:mod:`metaserver.sandbox.mounts`): the host's ``/usr`` over
the image's, and the interpreter and environment at their host paths, so the image only
has to be a compatible base (``SandboxSettings.docker_image``, Debian by default).

Installs get ``--network none`` too, with the host's allow-list proxy socket bound in and
the same bridge as bwrap inside. Untested on the reference machine, which has a docker CLI
but no engine (ARCHITECTURE.md, "Sandbox facts"); its tests skip there with that reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import uuid
from collections.abc import Sequence
from pathlib import Path

from metaserver.exceptions import SandboxError
from metaserver.sandbox.base import Command, Policy, Sandbox, base_environment
from metaserver.sandbox.bwrap import BRIDGE, PROXY_DIR, PROXY_PORT, host_python
from metaserver.sandbox.identity import (
    Identity,
    for_tenant,
    hand_over_writable,
    sandbox_identity,
)
from metaserver.sandbox.mounts import interpreter_prefix, plan_for
from metaserver.sandbox.proxy import index_hosts, shared_proxy
from metaserver.settings import SandboxSettings

DOCKER_VARIABLES = ("DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH")


class DockerSandbox(Sandbox):
    name = "docker"

    def __init__(self, limits: SandboxSettings) -> None:
        super().__init__(limits)
        self.docker = shutil.which("docker")
        if self.docker is None:
            raise SandboxError("the docker backend needs the docker CLI on PATH")
        self.identity: Identity = sandbox_identity(limits.uid, limits.gid)

    @classmethod
    def available(cls, limits: SandboxSettings) -> str | None:
        """None when a Docker engine answers, else why not."""
        return _probe()

    def wrap(self, argv: Sequence[str], policy: Policy) -> Command:
        assert self.docker is not None
        env = base_environment(policy)
        identity = for_tenant(self.identity, policy.tenant, self.limits.tenant_uids)
        writable = hand_over_writable(policy, env, identity)
        extra: list[Path] = []
        inner = list(argv)
        mounts: list[str] = []
        if policy.network:
            proxy = shared_proxy(index_hosts(policy.env))
            python = host_python()
            if (prefix := interpreter_prefix(python)) is not None:
                extra.append(prefix)
            extra.append(BRIDGE)
            mounts += ["-v", f"{proxy.directory}:{PROXY_DIR}:ro"]
            socket = PROXY_DIR / proxy.socket_path.name
            inner = [str(python), "-I", "-S", str(BRIDGE), str(socket), str(PROXY_PORT), "--"]
            inner += argv
            url = f"http://127.0.0.1:{PROXY_PORT}"
            env.update({"HTTPS_PROXY": url, "HTTP_PROXY": url, "ALL_PROXY": url})
        plan = plan_for(argv, policy.readable, writable, extra)
        for path, rw in plan.binds():
            mounts += ["-v", f"{path}:{path}:{'rw' if rw else 'ro'}"]
        # Shown empty (Policy.hidden); after the binds, which would cover them.
        for hidden in policy.hidden:
            if hidden.is_file() and not hidden.is_symlink():
                mounts += ["-v", f"{os.devnull}:{hidden}:ro"]
        options = [
            "run",
            "--rm",
            "-i",
            "--name",
            f"metaserver-{uuid.uuid4().hex[:12]}",
            "--network",
            "bridge" if policy.internet else "none",
            "--read-only",
            "--tmpfs",
            "/tmp:rw,exec,size=512m",  # noqa: S108 - the container's own tmpfs
            "--user",
            f"{identity.uid}:{identity.gid}",
            "--cap-drop",
            "ALL",
            "--security-opt",
            "no-new-privileges",
            "--init",
            "--pids-limit",
            str(self.limits.processes),
            "--memory",
            f"{self.limits.memory_mb}m",
            "--ulimit",
            f"nofile={self.limits.open_files}:{self.limits.open_files}",
            "--ulimit",
            f"cpu={self.limits.cpu_seconds}:{self.limits.cpu_seconds}",
            "--ulimit",
            f"fsize={self.limits.file_size_mb * 1024 * 1024}",
            "--ulimit",
            "core=0",
            "--workdir",
            str(policy.workdir),
        ]
        for key, value in env.items():
            options += ["--env", f"{key}={value}"]
        name = options[options.index("--name") + 1]
        argv_out = [self.docker, *options, *mounts, self.limits.docker_image, *inner]
        # The docker CLI itself needs only PATH and where the engine is.
        cli_env = {"PATH": os.defpath}
        cli_env.update({k: v for k in DOCKER_VARIABLES if (v := os.environ.get(k))})
        return Command(
            argv=argv_out,
            env=cli_env,
            cwd=policy.workdir,
            # Killing the CLI leaves the container running: stop it by name as well.
            kill_argv=[self.docker, "kill", name],
        )


@functools.cache
def _probe() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return "the docker CLI is not installed"
    try:
        result = subprocess.run(
            [docker, "info", "--format", "{{.ServerVersion}}"], capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"docker does not answer: {exc}"
    if result.returncode != 0:
        return "no Docker engine is reachable: " + result.stderr.decode(errors="replace")[-200:]
    return None
