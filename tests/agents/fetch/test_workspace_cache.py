"""The workspace cache: the second fetch of a source fetches nothing (real git, real files)."""

from __future__ import annotations

import asyncio
import shutil
import tarfile
from pathlib import Path

import pytest
from fixture_repos import git, make_calc_repo

import metaserver.agents.fetch.tree as fetch_module
from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.agents.fetch.workspace_cache import WorkspaceCache, pypi_key
from metaserver.contracts import Source, Workspace
from metaserver.exceptions import FetchError, SourceError
from metaserver.settings import IndexSettings, Settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def cache_of(settings: Settings) -> WorkspaceCache:
    return WorkspaceCache(settings.home / "cache" / "workspaces")


def forbid(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make the named fetch helpers fail the test if anything calls them.

    They are patched on fetch/tree.py, where the orchestration looks them up.
    """

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the cache should have answered")

    for name in names:
        monkeypatch.setattr(fetch_module, name, refuse)


async def test_git_source_is_cloned_once(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_calc_repo(tmp_path / "origin")
    source = parse_source(f"file://{repo}")
    first = await fetch(source, settings.workspaces_dir / "one", settings)
    forbid(monkeypatch, "clone_git")
    second = await fetch(source, settings.workspaces_dir / "two", settings)
    assert second.commit == first.commit and second.fingerprint == first.fingerprint
    assert first.fingerprint is not None and first.fingerprint.startswith("git:")
    assert (second.path / "calcpack" / "__init__.py").is_file()
    assert second.distribution == "calcpack"


async def test_a_new_commit_is_a_new_entry(tmp_path: Path, settings: Settings) -> None:
    repo = make_calc_repo(tmp_path / "origin")
    source = parse_source(f"file://{repo}")
    first = await fetch(source, settings.workspaces_dir / "one", settings)
    (repo / "calcpack" / "extra.py").write_text("Y = 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    second = await fetch(source, settings.workspaces_dir / "two", settings)
    assert second.commit != first.commit and second.fingerprint != first.fingerprint
    assert (second.path / "calcpack" / "extra.py").is_file()


async def test_local_archive_source(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_calc_repo(tmp_path / "calcpack-0.3.1")
    archive = tmp_path / "calcpack-0.3.1.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(repo / "pyproject.toml", "calcpack-0.3.1/pyproject.toml")
        tar.add(repo / "calcpack", "calcpack-0.3.1/calcpack")
    source = parse_source(str(archive))
    assert source.kind == "archive"
    first = await fetch(source, settings.workspaces_dir / "one", settings)
    assert (first.distribution, first.version) == ("calcpack", "0.3.1")
    assert first.fingerprint is not None and first.fingerprint.startswith("archive:")
    forbid(monkeypatch, "unpack_archive")
    second = await fetch(source, settings.workspaces_dir / "two", settings)
    assert second.fingerprint == first.fingerprint
    assert (second.path / "calcpack" / "__init__.py").is_file()


def test_a_file_that_is_no_archive_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SourceError, match="not a directory or a source archive"):
        parse_source(str(tmp_path / "notes.txt"))


def seed_pypi_entry(tmp_path: Path, settings: Settings, version: str) -> None:
    """Put a tree into the cache as an earlier online fetch of pypi:demo-pkg would have."""
    tree = tmp_path / f"seed-{version}"
    (tree / "demo_pkg").mkdir(parents=True)
    (tree / "demo_pkg" / "__init__.py").write_text(f"VERSION = {version!r}\n")
    (tree / "pyproject.toml").write_text(f'[project]\nname = "demo-pkg"\nversion = "{version}"\n')
    source = Source(kind="pypi", location="demo-pkg", original="pypi:demo-pkg")
    workspace = Workspace(source=source, path=tree, version=version, distribution="demo-pkg")
    cache_of(settings).store(pypi_key("demo-pkg", version), workspace)
    cache_of(settings).remember("pypi", "demo-pkg", version)


async def test_offline_pypi_from_the_cache(tmp_path: Path) -> None:
    # A dead index address: any network use would fail the fetch.
    index = IndexSettings(url="http://127.0.0.1:9/simple", offline=True)
    settings = Settings(home=tmp_path / "home", index=index)
    seed_pypi_entry(tmp_path, settings, "1.5")
    pinned = await fetch(parse_source("pypi:demo-pkg==1.5"), tmp_path / "a", settings)
    assert pinned.version == "1.5" and pinned.fingerprint is not None
    newest = await fetch(parse_source("pypi:Demo_Pkg"), tmp_path / "b", settings)
    assert newest.version == "1.5"
    assert (newest.path / "demo_pkg" / "__init__.py").read_text() == "VERSION = '1.5'\n"
    with pytest.raises(FetchError, match=r"^offline mode: demo-pkg==2\.0 is not in the"):
        await fetch(parse_source("pypi:demo-pkg==2.0"), tmp_path / "c", settings)
    assert not (tmp_path / "c").exists()


async def test_two_fetches_at_once_share_one_entry(tmp_path: Path, settings: Settings) -> None:
    repo = make_calc_repo(tmp_path / "origin")
    source = parse_source(f"file://{repo}")
    one, two = await asyncio.gather(
        fetch(source, settings.workspaces_dir / "one", settings),
        fetch(source, settings.workspaces_dir / "two", settings),
    )
    assert one.fingerprint == two.fingerprint
    entries = [p for p in (settings.home / "cache" / "workspaces" / "git").iterdir()]
    assert [p.name.startswith(".") for p in entries] == [False]


def test_an_unusable_entry_is_a_miss(tmp_path: Path, settings: Settings) -> None:
    seed_pypi_entry(tmp_path, settings, "1.0")
    entry = cache_of(settings).entry(pypi_key("demo-pkg", "1.0"))
    (entry / "meta.json").write_text("{not json")
    assert cache_of(settings).restore(pypi_key("demo-pkg", "1.0"), tmp_path / "out") is None
    assert not (tmp_path / "out").exists()
