"""Issue 35, end to end: a fixture git repository converted, exported as a patch, applied with
``git am`` on the converted commit in a fresh clone, installed with its mcp extra in a new uv
environment, its tests run with pytest, and the server asked for its tools over stdio; the
same version as a branch and through the meta-tool; a source distribution as files only."""

from __future__ import annotations

import asyncio
import configparser
import subprocess
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from export_fixtures import (
    convert_once,
    fresh_env,
    make_export_repo,
    make_sdist,
    make_setup_cfg_repo,
    run_export_cli,
)
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from fixture_repos import git

from metaserver.export import load_change, patch_text
from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry
from metaserver.server.app import build_server
from metaserver.settings import Settings

pytestmark = pytest.mark.integration


@dataclass
class Converted:
    settings: Settings
    record: ServerRecord
    source: Path


def _converted(source: str, home: Path, path: Path) -> Converted:
    settings, report = convert_once(source, home)
    record = Registry(settings.registry_path).resolve(report.server)
    return Converted(settings=settings, record=record, source=path)


@pytest.fixture(scope="module")
def from_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Converted]:
    root = tmp_path_factory.mktemp("export-git")
    repo = make_export_repo(root / "exportcalc")
    yield _converted(f"file://{repo}", root / "home", repo)


@pytest.fixture(scope="module")
def from_setup_cfg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Converted]:
    root = tmp_path_factory.mktemp("export-setup-cfg")
    repo = make_setup_cfg_repo(root / "cfgcalc")
    yield _converted(f"file://{repo}", root / "home", repo)


@pytest.fixture(scope="module")
def from_sdist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Converted]:
    root = tmp_path_factory.mktemp("export-sdist")
    archive = make_sdist(root)
    yield _converted(str(archive), root / "home", archive)


def _listed_tools(python: Path, server: Path) -> set[str]:
    async def listing() -> set[str]:
        async with Client(StdioTransport(str(python), [str(server)]), timeout=120) as client:
            return {tool.name for tool in await client.list_tools()}

    return asyncio.run(listing())


def _apply_install_and_serve(converted: Converted, tmp_path: Path, folder: str) -> Path:
    """The exported patch, by the CLI, applied with ``git am`` on the converted commit in a
    fresh clone, installed with its extra in a new uv environment, its tests run with
    pytest, its server asked for its tools over stdio; the clone."""
    record, home = converted.record, converted.settings.home
    patch_file = tmp_path / "server.patch"
    done = run_export_cli(home, record.ref, "--patch", str(patch_file))
    assert done.returncode == 0, done.stderr
    patch = patch_file.read_text()
    assert patch_text(converted.settings, record.name) == patch  # a second export, same bytes
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(converted.source), str(clone)], check=True)
    assert record.commit is not None
    git(clone, "checkout", "-q", record.commit)
    git(clone, "am", "-q", str(patch_file))
    changed = git(clone, "diff", "--name-only", record.commit, "HEAD").splitlines()
    packaging = [path for path in changed if not path.startswith(f"{folder}/")]
    assert packaging in (["pyproject.toml"], ["setup.cfg"])  # nothing else outside it
    for vendored in (clone / folder / "metaserver_runtime").glob("*.py"):
        assert "SPDX-License-Identifier: Apache-2.0" in vendored.read_text().splitlines()[1]
    readme = (clone / folder / "README.md").read_text()
    assert all(f"### `{tool.name}`" in readme for tool in record.tools)

    python = fresh_env(clone, ".[mcp]", "pytest")
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{folder}/"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert f"{len(record.tools)} passed" in tests.stdout
    listed = _listed_tools(python, clone / folder / "server.py")
    assert listed == {tool.name for tool in record.tools}
    return clone


def test_the_patch_applies_installs_passes_its_tests_and_serves(
    from_git: Converted, tmp_path: Path
) -> None:
    clone = _apply_install_and_serve(from_git, tmp_path, "mcp")
    project = tomllib.loads((clone / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["docs"] == ["sphinx"]  # the repository's own
    assert project["optional-dependencies"]["mcp"] == ["fastmcp==4.1.6"]  # as validated
    # The repository's own tests still run as before (its testpaths: tests/ only).
    own = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert own.returncode == 0 and "1 passed" in own.stdout, own.stdout[-2000:]


def test_a_setup_cfg_flat_layout_gets_its_extra_there_and_a_folder_it_builds_beside(
    from_setup_cfg: Converted, tmp_path: Path
) -> None:
    clone = _apply_install_and_serve(from_setup_cfg, tmp_path, "mcp-server")
    parser = configparser.ConfigParser()
    parser.read_string((clone / "setup.cfg").read_text())
    assert parser.get("options.extras_require", "mcp").split() == ["fastmcp==4.1.6"]
    assert parser.get("options.extras_require", "docs").split() == ["sphinx"]


def test_a_branch_of_a_clone_holds_the_same_change(from_git: Converted, tmp_path: Path) -> None:
    record, home = from_git.record, from_git.settings.home
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(from_git.source), str(clone)], check=True)
    done = run_export_cli(home, record.name, "--branch", "add-mcp", "--repo", str(clone))
    assert done.returncode == 0, done.stderr
    change = load_change(from_git.settings, record.name)
    made = git(clone, "diff", "--name-only", f"{record.commit}", "add-mcp").splitlines()
    assert made == sorted(change.files)
    assert git(clone, "show", "add-mcp:mcp/server.py") == (
        (record.output_dir / "server.py").read_text().rstrip("\n")
    )
    again = run_export_cli(home, record.name, "--branch", "add-mcp", "--repo", str(clone))
    assert again.returncode == 2 and "already exists" in again.stderr
    lonely = run_export_cli(home, record.name, "--branch", "x")
    assert lonely.returncode == 2 and "--repo" in lonely.stderr


async def test_the_meta_tool_returns_the_patch_and_the_files(from_git: Converted) -> None:
    settings, record = from_git.settings, from_git.record
    async with Client(build_server(settings)) as client:
        patched = (await client.call_tool("export_server", {"server": record.ref})).data
        files = (
            await client.call_tool("export_server", {"server": record.name, "format": "files"})
        ).data
        with pytest.raises(ToolError, match="no registered server"):
            await client.call_tool("export_server", {"server": "nobody"})
    assert patched["patch"] == patch_text(settings, record.ref)
    assert patched["commit"] == record.commit and patched["folder"] == "mcp"
    change = load_change(settings, record.name)
    assert [item["path"] for item in files["files"]] == list(change.files)
    assert files["message"] == change.message


async def test_a_source_distribution_exports_files_only(
    from_sdist: Converted, tmp_path: Path
) -> None:
    settings, record = from_sdist.settings, from_sdist.record
    assert record.commit is None
    refused = run_export_cli(settings.home, record.name, "--patch", str(tmp_path / "p.patch"))
    assert refused.returncode == 2
    assert "not a git repository" in refused.stderr and "--dir" in refused.stderr
    assert not (tmp_path / "p.patch").exists()
    out = tmp_path / "out"
    done = run_export_cli(settings.home, record.name, "--dir", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "mcp" / "server.py").read_bytes() == (
        record.output_dir / "server.py"
    ).read_bytes()
    extras = tomllib.loads((out / "pyproject.toml").read_text())["project"]
    assert extras["optional-dependencies"]["mcp"] == ["fastmcp==4.1.6"]
    async with Client(build_server(settings)) as client:
        with pytest.raises(ToolError, match="not a git repository"):
            await client.call_tool("export_server", {"server": record.name})
        files = (
            await client.call_tool("export_server", {"server": record.name, "format": "files"})
        ).data
    assert "mcp/server.py" in [item["path"] for item in files["files"]]
