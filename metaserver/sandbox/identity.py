"""Who untrusted code runs as, and the few host paths that must belong to that user.

Running untrusted code as root is never acceptable, not even inside bubblewrap: as root,
bwrap's ``--uid`` mapping still reaches host uid 0, so ``/root`` stays readable
(ARCHITECTURE.md, "Sandbox facts"). When metaserver runs as root, children therefore switch to a
dedicated unprivileged uid (``SandboxSettings.uid``) before any repository code runs. That
uid owns nothing on the host except what a policy makes writable:

* the policy's ``workdir`` and ``writable`` paths, handed over with :func:`hand_over`
  (the directory itself, never followed through a symlink);
* a package cache of its own (:func:`sandbox_cache`), next to the operator's uv cache,
  because an install must write its cache and the operator's cache must never be writable
  by sandboxed code: a build script could plant files in it that later installs copy into
  other environments (ARCHITECTURE.md, "Sandbox facts").

Children that act for one generated server (``Policy.tenant``) run as a uid of that server's
own (:func:`for_tenant`), because a process limit is counted per uid: with one uid for all,
a fork bomb in one server's tool would leave every other server unable to start a process or
a thread.

When metaserver is not root there is nothing to switch from: the child keeps the caller's
uid inside a user namespace, and these helpers do nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from metaserver.exceptions import SandboxError
from metaserver.sandbox.base import Policy

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Identity:
    """The uid/gid a child runs as; ``switch`` is whether that differs from ours."""

    uid: int
    gid: int
    switch: bool


def sandbox_identity(uid: int, gid: int) -> Identity:
    """The identity for children: ``uid``/``gid`` when we are root, our own otherwise."""
    if os.geteuid() == 0:
        if uid == 0 or gid == 0:
            raise SandboxError("the sandbox uid and gid must not be 0")
        return Identity(uid=uid, gid=gid, switch=True)
    return Identity(uid=os.geteuid(), gid=os.getegid(), switch=False)


def for_tenant(identity: Identity, tenant: str | None, slots: int) -> Identity:
    """The identity for a child acting for ``tenant``: one of ``slots`` uids above ours.

    The slot is a hash of the tenant, so the children of one server (validation, tests, the
    live process) get the same uid across restarts. Two tenants may share a slot (one in
    ``slots``): that weakens the separation between those two, it breaks nothing.
    """
    if not identity.switch or tenant is None or slots == 0:
        return identity
    offset = 1 + zlib.crc32(tenant.encode()) % slots
    return Identity(uid=identity.uid + offset, gid=identity.gid + offset, switch=True)


def hand_over(path: Path, identity: Identity, *, with_contents: bool = False) -> None:
    """Create ``path`` (a directory) and make it writable by ``identity``.

    Only the directory itself changes owner, unless ``with_contents``: its contents were
    written by earlier children of the same identity or are the host's. A ``path`` that is a
    symlink is refused, since a child may have planted it.

    Args:
        path: the directory.
        identity: who gets it.
        with_contents: also take over what another sandbox uid left inside (a tenant's work
            directory written before tenants had uids of their own); symlinks are never
            followed, at any depth.
    """
    path.mkdir(parents=True, exist_ok=True)
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise SandboxError(f"refusing to hand over {path}: not a plain directory")
    owner = (identity.uid, identity.gid)
    if identity.switch and (info.st_uid, info.st_gid) != owner:
        if with_contents:
            give_tree(path, identity)
        os.chown(path, identity.uid, identity.gid, follow_symlinks=False)
    elif with_contents:
        repair_once(path, identity)  # entries another backend's uid left inside
    if identity.switch and not info.st_mode & stat.S_IXOTH:
        # bwrap, root but without CAP_DAC_OVERRIDE, must enter it for --chdir and binds:
        # search permission for others, never read or write.
        os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IXOTH | stat.S_IXUSR)


def give_tree(path: Path, identity: Identity) -> None:
    """Make ``identity`` the owner of ``path`` and everything in it (when it is not ours).

    ``os.fwalk`` holds each directory open and resolves names relative to it, without
    following symlinks: a directory swapped for a symlink meanwhile cannot steer the chown
    elsewhere.
    """
    if not identity.switch:
        return
    for _dirpath, dirnames, filenames, dir_fd in os.fwalk(path, follow_symlinks=False):
        for name in [*dirnames, *filenames]:
            with contextlib.suppress(FileNotFoundError):
                os.chown(name, identity.uid, identity.gid, dir_fd=dir_fd, follow_symlinks=False)
    os.chown(path, identity.uid, identity.gid, follow_symlinks=False)


def reachable(path: Path, identity: Identity, write: bool = False) -> bool:
    """Whether ``identity`` could open ``path`` by its host path (traverse every parent).

    Used by the ``process`` backend, which has no mount namespace to expose paths through:
    it switches uid only when everything a child needs is reachable by the sandbox uid.
    """
    if not identity.switch:
        return True
    target = Path(os.path.abspath(path))
    parts = [*reversed(target.parents), target]
    for index, part in enumerate(parts):
        try:
            info = part.stat()
        except OSError:
            return index > 0 and write  # a path still to be created below a reachable one
        last = index == len(parts) - 1
        if stat.S_ISDIR(info.st_mode):
            need = 0o3 if (last and write) else 0o1
        else:
            need = 0o2 if write else 0o4
        if not _allowed(info, identity, need):
            return False
    return True


def _allowed(info: os.stat_result, identity: Identity, need: int) -> bool:
    mode = info.st_mode
    if info.st_uid == identity.uid:
        bits = (mode >> 6) & 0o7
    elif info.st_gid == identity.gid:
        bits = (mode >> 3) & 0o7
    else:
        bits = mode & 0o7
    return bits & need == need


def sandbox_cache(env: Mapping[str, str], identity: Identity) -> Path | None:
    """The uv cache installs of ``identity`` use: ``<cache>-sandbox-<uid>``, beside the
    operator's cache named by ``UV_CACHE_DIR``.

    Sandboxed installs never write the operator's cache (and, when metaserver is root, could
    not: it belongs to root). A cache of their own, owned by the sandbox uid, keeps later
    installs warm; what one install's build script plants there can reach later installs,
    which is why environments are installed with ``--link-mode=copy`` and the cache is
    invisible to every child that is not an install.
    """
    own = sandbox_cache_path(env, identity)
    if own is None:
        return None
    own.parent.mkdir(parents=True, exist_ok=True)
    hand_over(own, identity)
    repair_once(own, identity)
    return own


def sandbox_cache_path(env: Mapping[str, str], identity: Identity) -> Path | None:
    """Where :func:`sandbox_cache` puts the cache of ``identity`` (nothing is created).

    Named by the uid that writes it, so that a child running as another uid (the ``process``
    backend falls back to metaserver's own where the sandbox uid cannot reach a path) never
    leaves entries in it that the sandbox uid cannot write: uv then refuses the whole cache.
    """
    configured = env.get("UV_CACHE_DIR")
    if not configured:
        return None
    cache = Path(configured)
    return cache.with_name(f"{cache.name}-sandbox-{identity.uid}")


_repaired: set[tuple[Path, int]] = set()


def repair_once(path: Path, identity: Identity) -> None:
    """Give ``identity`` every entry of ``path`` it does not own, once per process and path.

    Stores written before caches were named by their writer's uid may hold entries of another
    uid (root's, from the ``process`` backend); one walk at first use repairs them.
    """
    key = (path, identity.uid)
    if not identity.switch or key in _repaired:
        return
    _repaired.add(key)
    owner = (identity.uid, identity.gid)
    foreign = 0
    for _dirpath, dirnames, filenames, dir_fd in os.fwalk(path, follow_symlinks=False):
        for name in [*dirnames, *filenames]:
            with contextlib.suppress(FileNotFoundError):
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if (info.st_uid, info.st_gid) != owner:
                    os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)
                    foreign += 1
    if foreign:
        logger.debug("sandbox: gave %d entries of %s back to uid %d", foreign, path, identity.uid)


def hand_over_writable(policy: Policy, env: dict[str, str], identity: Identity) -> list[Path]:
    """Hand ``policy``'s writable paths to ``identity`` (a tenant's with what an earlier uid
    left in them), and point ``env`` at the package cache its kind may use.

    Returns:
        Every path the child may write: the policy's, and the package cache if it gets one.
    """
    writable = [policy.workdir, *policy.writable]
    for path in writable:
        hand_over(path, identity, with_contents=policy.tenant is not None)
    cache = package_cache_for(policy.kind, env, identity)
    return writable if cache is None else [*writable, cache]


def package_cache_for(policy_kind: str, env: dict[str, str], identity: Identity) -> Path | None:
    """Point ``env`` at the cache a child of this kind may use; returns it if it is writable.

    Only installs get a cache (the sandbox's own, writable); every other child gets none at
    all, so the code it runs cannot read or plant anything there.
    """
    if policy_kind == "install":
        cache = sandbox_cache(env, identity)
        if cache is not None:
            env["UV_CACHE_DIR"] = str(cache)
        return cache
    env.pop("UV_CACHE_DIR", None)
    env["UV_NO_CACHE"] = "1"
    return None
