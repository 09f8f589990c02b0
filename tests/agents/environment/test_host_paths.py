"""No host path inside an environment: the .pth of a non-installable tree and the local
install origin (issue 28), as files and as a served tool sees them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from backends import require_backend
from fixture_repos import make_calc_repo
from host_paths_fixtures import site_record

from metaserver.agents.environment.build import build_environment
from metaserver.agents.environment.host_paths import drop_local_origins, put_on_path
from metaserver.children.pool import ChildPool
from metaserver.contracts import PTH_NAME, Source, Workspace
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings


def _fake_venv(root: Path) -> Path:
    site = root / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    return root / "venv"


def test_a_tree_on_the_path_is_copied_and_named_relative(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / ".git").mkdir(parents=True)
    (tree / "mod.py").write_text("X = 1\n")
    (tree / ".git" / "HEAD").write_text("ref\n")
    venv = _fake_venv(tmp_path)
    put_on_path(venv, tree)
    site = venv / "lib" / "python3.11" / "site-packages"
    line = (site / PTH_NAME).read_text().strip()
    assert not os.path.isabs(line)
    # What site.addpackage does with a relative line: joined with the site directory.
    assert Path(os.path.abspath(site / line)) == venv / "source"
    assert (venv / "source" / "mod.py").read_text() == "X = 1\n"
    assert not (venv / "source" / ".git").exists()
    put_on_path(venv, tree)  # again (a restored environment): the same line, one copy
    assert (site / PTH_NAME).read_text().strip() == line


def test_local_install_origins_are_dropped_with_their_record_line(tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path)
    site = venv / "lib" / "python3.11" / "site-packages"
    local, remote = site / "local-1.0.dist-info", site / "remote-2.0.dist-info"
    for info, url in ((local, f"file://{tmp_path}/ws"), (remote, "https://example.org/r.whl")):
        info.mkdir()
        (info / "direct_url.json").write_text(json.dumps({"url": url, "dir_info": {}}))
        (info / "RECORD").write_text(
            f"{info.name}/METADATA,sha256=x,1\n{info.name}/direct_url.json,sha256=y,2\n"
        )
    assert drop_local_origins(venv) == 1
    assert not (local / "direct_url.json").exists()
    assert (local / "RECORD").read_text() == f"{local.name}/METADATA,sha256=x,1\n"
    assert (remote / "direct_url.json").is_file()
    assert "direct_url.json" in (remote / "RECORD").read_text()


def _workspace(path: Path, distribution: str | None) -> Workspace:
    source = Source(kind="local", location=str(path), original=str(path))
    return Workspace(source=source, path=path, distribution=distribution)


@pytest.mark.integration
async def test_a_served_tool_sees_no_host_path_in_its_environment(tmp_path: Path) -> None:
    require_backend("bwrap")
    settings = Settings(home=tmp_path / "home", sandbox={"backend": "bwrap"})
    sandbox = get_sandbox(settings.sandbox)
    installed = make_calc_repo(tmp_path / "calcpack")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "requirements.txt").write_text("# the standard library only\n")
    (plain / "plainmod.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    environments = {
        "calcpack": await build_environment(
            _workspace(installed, "calcpack"),
            settings.environments_dir / "calcpack",
            settings,
            sandbox,
        ),
        "plainmod": await build_environment(
            _workspace(plain, None), settings.environments_dir / "plain", settings, sandbox
        ),
    }
    assert environments["plainmod"].strategy == "requirements+path"
    pool = ChildPool(settings)
    try:
        seen = {}
        for module, environment in environments.items():
            record = site_record(settings, environment, module)
            result = await pool.call(record, "site_view", {"module": module})
            assert not result.is_error, result.content
            seen[module] = result.structured_content or {}
    finally:
        await pool.close()
    assert seen["plainmod"]["imported"] == "/venv/source/plainmod.py"
    assert "/venv/source" in seen["plainmod"]["sys_path"]
    assert PTH_NAME in seen["plainmod"]["pth"]
    assert "calcpack" not in seen["calcpack"]["origins"]  # installed from a local tree
    text = json.dumps(seen)
    for host in {str(tmp_path), str(tmp_path.resolve()), str(settings.home)}:
        assert host not in text, (host, text)
