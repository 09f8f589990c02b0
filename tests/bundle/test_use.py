"""Converting from a bundle (metaserver/bundle/use.py): what it refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from metaserver.bundle.use import first_bundled

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    return subprocess.run([METASERVER, *args], capture_output=True, text=True, env=env, timeout=300)


def test_a_source_missing_from_the_bundle_is_named(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    for part in ("workspaces", "wheels"):
        (bundle / part).mkdir(parents=True)
    (bundle / "manifest.json").write_text(
        json.dumps({"python": "3.11", "metaserver": "0", "sources": []})
    )
    done = run(tmp_path / "home", "convert", "pypi:six==1.17.0", "--bundle", str(bundle))
    assert done.returncode == 2
    assert "pypi:six==1.17.0 is not in the bundle" in done.stderr


def test_a_directory_that_is_not_a_bundle_is_refused(tmp_path: Path) -> None:
    done = run(tmp_path / "home", "convert", "pypi:six==1.17.0", "--bundle", str(tmp_path))
    assert done.returncode == 2
    assert "is not a metaserver bundle" in done.stderr


def test_a_manifest_whose_key_names_another_path_is_refused(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    for part in ("workspaces", "wheels"):
        (bundle / part).mkdir(parents=True)
    entry = {"source": "pypi:six==1.17.0", "fingerprint": "pypi:../../../outside"}
    (bundle / "manifest.json").write_text(
        json.dumps({"python": "3.11", "metaserver": "0", "sources": [entry]})
    )
    done = run(tmp_path / "home", "convert", "pypi:six==1.17.0", "--bundle", str(bundle))
    assert done.returncode == 2
    assert "is not a metaserver bundle" in done.stderr


def test_a_papers_repository_is_the_first_of_its_links_the_bundle_holds(tmp_path: Path) -> None:
    # The bundle fetched the paper's second link (the first did not fetch when it was made).
    bundle = tmp_path / "bundle"
    for part in ("workspaces", "wheels"):
        (bundle / part).mkdir(parents=True)
    entry = {"source": "https://github.com/b/b", "fingerprint": "git:" + "0" * 40}
    (bundle / "manifest.json").write_text(
        json.dumps({"python": "3.11", "metaserver": "0", "sources": [entry]})
    )
    links = ["https://github.com/a/a", "https://github.com/b/b"]
    assert first_bundled(bundle, links) == "https://github.com/b/b"
    assert first_bundled(bundle, links[:1]) == "https://github.com/a/a"  # refused by name later


def test_a_tree_with_a_link_out_of_it_is_refused_and_nothing_is_cached(tmp_path: Path) -> None:
    """Issue 28: a crafted bundle's tree (with a symlink to /etc) stayed in the workspace
    cache after the conversion failed."""
    bundle = tmp_path / "bundle"
    for part in ("workspaces", "wheels"):
        (bundle / part).mkdir(parents=True)
    tree = bundle / "workspaces" / "pypi" / ("ab" * 32)
    (tree / "demo").mkdir(parents=True)
    (tree / "demo" / "__init__.py").write_text("def f() -> int:\n    return 1\n")
    (tree / "pyproject.toml").write_text("[project]\nname = 'demo'\nversion = '1'\n")
    (tree / "etc").symlink_to("/etc")
    entry = {"source": "pypi:demo==1", "fingerprint": "pypi:" + "ab" * 32}
    (bundle / "manifest.json").write_text(
        json.dumps({"python": "3.11", "metaserver": "0", "sources": [entry]})
    )
    home = tmp_path / "home"
    done = run(home, "convert", "pypi:demo==1", "--bundle", str(bundle))
    assert done.returncode == 2
    assert "holds a link out of it (etc)" in done.stderr
    assert not home.exists() or not any(home.rglob("*"))
