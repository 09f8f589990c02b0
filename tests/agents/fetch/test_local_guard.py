"""A local SOURCE must be a project directory, copied within bounds, leaving nothing behind.

The real CLI is run for the inputs a user types (``/``, ``~``, ``/etc``): exit 2, one clear
line, and no METASERVER_HOME created.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_repos import make_calc_repo

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.contracts import Source
from metaserver.exceptions import SourceError
from metaserver.pipeline import convert
from metaserver.settings import Settings


def _cli(source: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "METASERVER_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "metaserver.cli", "convert", source],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("/", "not a project directory"),
        ("~", "home directory"),
        ("/etc", "system tree /etc"),
        ("/proc/self", "system tree /proc"),
        ("/usr/lib", "system tree /usr"),
    ],
)
def test_cli_refuses_a_directory_that_is_no_project(source: str, says: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _cli(source, home)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not home.exists(), "nothing left behind"


@pytest.mark.parametrize("path", ["/", "/etc", "/etc/ssl", "/dev", "/sys/kernel", "/var", "/tmp"])
def test_system_trees_and_containers_are_refused(path: str) -> None:
    with pytest.raises(SourceError):
        parse_source(path)


def test_every_home_directory_is_refused_but_a_project_in_one_is_not(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="home directory"):
        parse_source(str(Path.home()))
    with pytest.raises(SourceError, match="home directory"):
        parse_source(f"{Path.home()}/.")  # spelled another way
    project = make_calc_repo(tmp_path / "calc")
    assert parse_source(str(project)).kind == "local"


def test_a_symlink_to_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "innocent").symlink_to("/")
    with pytest.raises(SourceError, match="not a project directory"):
        parse_source(str(tmp_path / "innocent"))


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(home=tmp_path / "home", **overrides)


async def _refused(tree: Path, tmp_path: Path, **overrides: Any) -> str:
    """Convert ``tree`` (a local SOURCE); it must be refused leaving no home behind."""
    settings = _settings(tmp_path, **overrides)
    with pytest.raises(SourceError) as caught:
        await convert(str(tree), settings=settings)
    assert not settings.home.exists(), list(settings.home.rglob("*"))
    return str(caught.value)


async def test_a_fifo_inside_the_tree_refuses_it_and_leaves_nothing(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    os.mkfifo(tree / "calcpack" / "pipe")  # reading it would block the copy forever
    message = await _refused(tree, tmp_path)
    assert "FIFO" in message and "pipe" in message


async def test_a_socket_inside_the_tree_refuses_it(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    short = Path(f"/tmp/ms-sock-{os.getpid()}")  # unix socket paths are short
    short.mkdir()
    try:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(short / "s"))
        (tree / "calcpack" / "s").symlink_to(short / "s")  # a link out: never followed
        os.link(short / "s", tree / "calcpack" / "live.sock")  # the socket itself, inside
        message = await _refused(tree, tmp_path)
        assert "socket" in message
        listener.close()
    finally:
        for entry in short.iterdir():
            entry.unlink()
        short.rmdir()


async def test_a_symlink_pointing_outside_is_never_followed(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("do not copy")
    (tree / "calcpack" / "data").symlink_to(secret)
    (tree / "calcpack" / "passwd").symlink_to("/etc/passwd")
    dest = tmp_path / "home" / "ws"
    source = Source(kind="local", location=str(tree), original=str(tree))
    await fetch(source, dest, _settings(tmp_path))
    assert not os.path.lexists(dest / "calcpack" / "data")
    assert not os.path.lexists(dest / "calcpack" / "passwd")
    assert not any("do not copy" in p.read_text() for p in dest.rglob("*") if p.is_file())


async def test_a_copy_over_its_file_bound_is_refused(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    for index in range(30):
        (tree / "calcpack" / f"data{index}.txt").write_text("x")
    message = await _refused(tree, tmp_path, local_copy_max_files=20)
    assert "METASERVER_LOCAL_COPY_MAX_FILES" in message


async def test_a_copy_over_its_byte_bound_is_refused(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    (tree / "calcpack" / "blob.bin").write_bytes(b"\0" * (2 * 2**20))
    message = await _refused(tree, tmp_path, local_copy_max_mb=1)
    assert "METASERVER_LOCAL_COPY_MAX_MB" in message


async def test_a_copy_over_its_time_bound_is_refused(tmp_path: Path) -> None:
    tree = make_calc_repo(tmp_path / "calc")
    for index in range(50):
        (tree / "calcpack" / f"data{index}.txt").write_text("x")
    message = await _refused(tree, tmp_path, local_copy_seconds=1e-9)
    assert "METASERVER_LOCAL_COPY_SECONDS" in message
