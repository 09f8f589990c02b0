"""Built environments shared by hard links: frozen against sandboxed writes, unshared before one.

The attack these guard against: an install in the repair stage runs a repository's build
script as the sandbox user inside an environment whose files are hard links into the store
(and into other servers' environments). Writing such a file in place would plant code in all
of them.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from backends import require_backend

from metaserver.agents.environment.cache import freeze_environment, link_tree, unshare_environment
from metaserver.sandbox import get_sandbox
from metaserver.sandbox.base import Policy
from metaserver.sandbox.identity import sandbox_identity
from metaserver.settings import SandboxSettings

SANDBOX_UID = SandboxSettings().uid

requires_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="ownership is only taken back when metaserver runs as root"
)


def _tree(root: Path, owner: int) -> Path:
    """A small environment-like tree, owned by ``owner`` as a sandboxed install leaves it."""
    package = root / "lib" / "python3.11" / "site-packages" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n")
    (root / "bin").mkdir()
    (root / "bin" / "tool").write_text("#!/bin/sh\n")
    (root / "bin" / "tool").chmod(0o755)
    if os.geteuid() == 0:
        for path in [root, *root.rglob("*")]:
            os.chown(path, owner, owner, follow_symlinks=False)
    return root


def _inodes(root: Path) -> set[int]:
    return {p.lstat().st_ino for p in root.rglob("*") if p.is_file()}


@requires_root
def test_freezing_takes_every_entry_back_and_follows_no_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host file\n")
    os.chown(outside, 4242, 4242)
    venv = _tree(tmp_path / "venv", SANDBOX_UID)
    planted = venv / "lib" / "link-to-outside"
    planted.symlink_to(outside)
    os.chown(planted, SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)

    freeze_environment(venv)

    for path in [venv, *venv.rglob("*")]:
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == (0, 0), path
        if path.is_file() and not path.is_symlink():
            assert not info.st_mode & 0o222, path
    assert outside.stat().st_uid == 4242  # the symlink's target was not touched
    assert outside.stat().st_mode & 0o200


def test_unsharing_breaks_every_link_and_hands_the_copy_over(tmp_path: Path) -> None:
    store = _tree(tmp_path / "store", SANDBOX_UID)
    freeze_environment(store)
    venv = tmp_path / "venv"
    link_tree(store, venv)
    assert _inodes(venv) == _inodes(store)
    identity = sandbox_identity(SANDBOX_UID, SANDBOX_UID)
    if identity.switch:  # an earlier child was handed the directory itself, not its contents
        os.chown(venv, identity.uid, identity.gid)

    unshare_environment(venv, identity)

    assert not _inodes(venv) & _inodes(store)
    init = venv / "lib" / "python3.11" / "site-packages" / "pkg" / "__init__.py"
    assert init.read_text() == "VALUE = 1\n"
    assert os.access(venv / "bin" / "tool", os.X_OK)
    owners = {(p.lstat().st_uid, p.lstat().st_gid) for p in [venv, *venv.rglob("*")]}
    assert owners == {(identity.uid, identity.gid)}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


ATTACK = """
import os
target = os.environ["TARGET"]
try:
    os.chmod(target, 0o644)
    with open(target, "a") as f:
        f.write("PLANTED = True\\n")
    print("written")
except OSError as e:
    print("refused", e.errno)
"""


@requires_root
async def test_a_sandboxed_install_cannot_write_a_stored_file_in_place(tmp_path: Path) -> None:
    require_backend("bwrap")
    sandbox = get_sandbox(SandboxSettings(backend="bwrap"))
    store = _tree(tmp_path / "store", SANDBOX_UID)
    freeze_environment(store)
    venv = tmp_path / "venv"
    link_tree(store, venv)
    stored = store / "lib" / "python3.11" / "site-packages" / "pkg" / "__init__.py"
    target = venv / "lib" / "python3.11" / "site-packages" / "pkg" / "__init__.py"

    async def attack() -> str:
        # The target is named in the environment: a path on the command line is bound
        # read-only on its own.
        policy = Policy(
            workdir=tmp_path / "work",
            timeout=30,
            writable=(venv,),
            kind="install",
            env={"TARGET": str(target)},
        )
        result = await sandbox.run([sys.executable, "-I", "-c", ATTACK], policy)
        assert result.ok, result.stderr
        return result.stdout.strip()

    # Frozen: the linked file belongs to root now, and the sandbox user cannot unfreeze it.
    assert await attack() == f"refused {errno.EPERM}"
    assert stored.read_text() == "VALUE = 1\n"

    # Unshared, as an install into it is: the copy is the sandbox user's own to change...
    unshare_environment(venv, sandbox_identity(SANDBOX_UID, SANDBOX_UID))
    assert await attack() == "written"
    assert "PLANTED" in target.read_text()
    # ...and the store, and whatever else links to it, did not change.
    assert stored.read_text() == "VALUE = 1\n"
