"""Which uid a child runs as: the sandbox's own, or one of its tenant's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from metaserver.sandbox.identity import Identity, for_tenant, hand_over
from metaserver.settings import SandboxSettings

BASE = Identity(uid=60999, gid=60999, switch=True)


def test_a_tenant_keeps_its_uid_and_tenants_spread_over_the_range() -> None:
    first = for_tenant(BASE, "calcpack-1a2b3c4d", 1000)
    assert first == for_tenant(BASE, "calcpack-1a2b3c4d", 1000)  # same server, same uid
    assert first.switch and first.uid == first.gid
    uids = {for_tenant(BASE, f"server-{n}", 1000).uid for n in range(200)}
    assert all(60999 < uid <= 61999 for uid in uids)
    assert len(uids) > 150  # a hash, not a handful of buckets


def test_no_tenant_no_switch_or_no_range_means_the_sandbox_uid() -> None:
    assert for_tenant(BASE, None, 1000) == BASE
    assert for_tenant(BASE, "calcpack", 0) == BASE
    own = Identity(uid=1000, gid=1000, switch=False)  # metaserver is not root
    assert for_tenant(own, "calcpack", 1000) == own


def test_the_range_must_stay_below_nobody() -> None:
    with pytest.raises(ValidationError, match="65534"):
        SandboxSettings(uid=65000, tenant_uids=1000)
    assert SandboxSettings(uid=60999, tenant_uids=1000).tenant_uids == 1000


@pytest.mark.skipif(os.geteuid() != 0, reason="changing owners needs root")
def test_a_tenant_takes_over_what_another_sandbox_uid_left_in_its_work_dir(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "host-file"
    outside.write_text("x")
    os.chown(outside, 4242, 4242)
    work = tmp_path / "work"
    (work / "scripts").mkdir(parents=True)
    (work / "scripts" / "old.tmp").write_text("x")
    (work / "scripts" / "escape").symlink_to(outside)
    for entry in [work, *work.rglob("*")]:
        os.chown(entry, BASE.uid, BASE.gid, follow_symlinks=False)
    tenant = for_tenant(BASE, "calcpack-1a2b3c4d", 1000)

    hand_over(work, tenant)  # by default only the directory itself
    assert (work / "scripts").stat().st_uid == BASE.uid
    os.chown(work, BASE.uid, BASE.gid)

    hand_over(work, tenant, with_contents=True)
    owners = {entry.lstat().st_uid for entry in [work, *work.rglob("*")]}
    assert owners == {tenant.uid}
    assert outside.stat().st_uid == 4242  # a symlink is never followed


@pytest.mark.skipif(os.geteuid() != 0, reason="changing owners needs root")
def test_the_sandbox_cache_gets_back_entries_another_uid_left(tmp_path: Path) -> None:
    """A cache once written by root (the process backend) is repaired at first use."""
    from metaserver.sandbox.identity import sandbox_cache

    operator = tmp_path / "uv"
    own = tmp_path / "uv-sandbox-60999"
    (own / "sdists-v9" / "deep").mkdir(parents=True)
    (own / "sdists-v9" / "deep" / "entry").write_text("root's")
    (own / ".lock").write_text("")
    os.chown(own, 60999, 60999)  # the directory is the sandbox's, its contents are root's
    cache = sandbox_cache({"UV_CACHE_DIR": str(operator)}, BASE)
    assert cache == own
    owners = {(p.lstat().st_uid, p.lstat().st_gid) for p in [own, *own.rglob("*")]}
    assert owners == {(60999, 60999)}


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid switch happens only as root")
def test_a_process_child_left_as_root_uses_a_cache_of_its_own(tmp_path: Path) -> None:
    """The process backend runs as root where the sandbox uid cannot reach a path: then its
    installs write root's cache, never the sandbox uid's."""
    from metaserver.sandbox import Policy, ProcessSandbox

    private = tmp_path / "private"
    private.mkdir(mode=0o700)  # unreachable by the sandbox uid: no switch
    sandbox = ProcessSandbox(SandboxSettings(backend="process"))
    policy = Policy(
        workdir=private / "work",
        timeout=10,
        kind="install",
        env={"UV_CACHE_DIR": str(private / "uv")},
    )
    command = sandbox.wrap(["/bin/true"], policy)
    assert command.env["UV_CACHE_DIR"] == str(private / "uv-sandbox-0")
    assert not (private / "uv-sandbox-60999").exists()
