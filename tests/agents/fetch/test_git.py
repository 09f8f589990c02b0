"""Git sources (agents/fetch/git.py): real git, a real origin repository served by file://."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from pathlib import Path

import pytest
from fetch_helpers import Origin, dest_for, make_settings, snapshot
from fixture_repos import git

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.contracts import Source
from metaserver.exceptions import FetchError, SourceError
from metaserver.settings import TimeoutSettings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


async def test_clone_default_branch(tmp_path: Path, origin: Origin) -> None:
    before = snapshot(origin.path)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(origin.url), dest, make_settings(tmp_path))
    assert workspace.path == dest
    assert workspace.commit == origin.main
    assert workspace.distribution == "demo-pkg"
    assert workspace.version == "0.3.0"
    assert (dest / "demo_pkg" / "middle.py").is_file()
    assert not (dest / "demo_pkg" / "feature.py").exists()
    # Shallow: the clone holds one commit.
    assert git(dest, "rev-list", "--count", "HEAD") == "1"
    assert snapshot(origin.path) == before, "the original repository is untouched"
    assert git(origin.path, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("ref", "expected", "has_feature"),
    [
        ("feature", "feature", True),
        ("v0.1", "tagged", False),
        ("main", "main", False),
    ],
)
async def test_clone_branch_or_tag(
    tmp_path: Path, origin: Origin, ref: str, expected: str, has_feature: bool
) -> None:
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(origin.url, ref=ref), dest, make_settings(tmp_path))
    assert workspace.commit == getattr(origin, expected)
    assert workspace.source.ref == ref
    assert (dest / "demo_pkg" / "feature.py").exists() is has_feature


async def test_clone_full_commit_sha(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    source = parse_source(origin.url, ref=origin.middle)
    workspace = await fetch(source, dest, make_settings(tmp_path))
    assert workspace.commit == origin.middle
    assert git(dest, "rev-parse", "HEAD") == origin.middle
    assert (dest / "demo_pkg" / "middle.py").is_file()
    assert workspace.version == "0.1.0"  # pyproject at that commit


async def test_commit_sha_falls_back_to_full_clone_when_server_refuses(
    tmp_path: Path,
    origin: Origin,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Protocol v0 upload-pack refuses wants that are not ref tips (no allowReachableSHA1InWant).
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    dest = dest_for(tmp_path)
    with caplog.at_level(logging.INFO, logger="metaserver.agents.fetch"):
        workspace = await fetch(
            parse_source(origin.url, ref=origin.middle), dest, make_settings(tmp_path)
        )
    assert workspace.commit == origin.middle
    assert "cloning in full" in caplog.text


async def test_clone_abbreviated_commit(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    source = parse_source(origin.url, ref=origin.middle[:10])
    workspace = await fetch(source, dest, make_settings(tmp_path))
    assert workspace.commit == origin.middle


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 40, "abcdef1234"])
async def test_missing_ref_is_a_source_error(tmp_path: Path, origin: Origin, ref: str) -> None:
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no branch, tag or commit"):
        await fetch(parse_source(origin.url, ref=ref), dest, make_settings(tmp_path))
    assert not dest.exists()
    assert not os.path.lexists(dest)


async def test_not_a_repository_is_a_fetch_error(tmp_path: Path) -> None:
    empty = tmp_path / "not-a-repo"
    empty.mkdir()
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="does not appear to be a git repository") as caught:
        await fetch(parse_source(f"file://{empty}"), dest, make_settings(tmp_path))
    assert "\n" not in str(caught.value)
    assert "Traceback" not in str(caught.value)
    assert not dest.exists()


async def test_git_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An "ssh" that never answers stands in for a server that hangs.
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 60\n")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH", str(hang))
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    dest = dest_for(tmp_path)
    settings = make_settings(tmp_path, timeouts=TimeoutSettings(fetch=0.5))
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0\.5 s") as caught:
        await fetch(parse_source("ssh://git@example.invalid/repo.git"), dest, settings)
    assert time.monotonic() - started < 20
    assert caught.value.failure_type == "timeout"
    assert not dest.exists()


async def test_cancellation_waits_for_git_and_removes_dest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 60\n")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH", str(hang))
    dest = dest_for(tmp_path)
    settings = make_settings(tmp_path, timeouts=TimeoutSettings(fetch=1.0))
    task = asyncio.ensure_future(
        fetch(parse_source("ssh://git@example.invalid/repo.git"), dest, settings)
    )
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not dest.exists()


async def test_credentials_never_reach_the_message(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback: connection refused at once, no network needed.
    url = "https://user:s3cret-token@127.0.0.1:9/owner/repo.git"
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError) as caught:
        await fetch(parse_source(url), dest, make_settings(tmp_path))
    assert "s3cret-token" not in str(caught.value)
    assert "127.0.0.1" in str(caught.value)
    assert not dest.exists()


async def test_remote_helper_refused_even_without_parse_source(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    source = Source(kind="git", location=f"ext::sh -c touch% {marker}", original="x")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="unsafe git URL"):
        await fetch(source, dest, make_settings(tmp_path))
    assert not marker.exists()
    assert not dest.exists()


async def test_repository_without_python_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "docs-only"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# nothing here\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "docs")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no Python package found in"):
        await fetch(parse_source(f"file://{repo}"), dest, make_settings(tmp_path))
    assert not dest.exists()


async def test_existing_destination_is_left_alone(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    dest.mkdir(parents=True)
    (dest / "keep").write_text("mine")
    with pytest.raises(FileExistsError):
        await fetch(parse_source(origin.url), dest, make_settings(tmp_path))
    assert (dest / "keep").read_text() == "mine"
