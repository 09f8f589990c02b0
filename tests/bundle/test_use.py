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
