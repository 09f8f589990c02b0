"""A bundle made online converts a library with a dependency where there is no network at all
(a fresh network namespace, ``unshare -n``), from the bundle alone; a paper SOURCE bundles
the repository it names, as ``convert`` would resolve it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repos import CALC_MODULE, git, make_package_repo, pyproject_with

from metaserver.bundle.manifest import read_manifest

METASERVER = str(Path(sys.executable).with_name("metaserver"))
DEPENDENT = CALC_MODULE.replace(
    "from __future__ import annotations\n",
    "from __future__ import annotations\n\nimport six  # the dependency the bundle must carry\n",
    1,
)


def run(home: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    # A package cache of this home's own: nothing warm from earlier runs on this machine.
    env["METASERVER_UV_CACHE_DIR"] = str(home / "uv-cache")
    return subprocess.run(
        [*prefix, METASERVER, *args], capture_output=True, text=True, env=env, timeout=900
    )


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("unshare") is None or os.geteuid() != 0, reason="needs root")
def test_a_bundled_library_converts_with_no_network(tmp_path: Path) -> None:
    repo = make_package_repo(tmp_path / "sixcalc", "sixcalc", "sixcalc", DEPENDENT)
    (repo / "pyproject.toml").write_text(pyproject_with("sixcalc", "sixcalc", ["six>=1.16"]))
    git(repo, "commit", "-qam", "depend on six")
    source = f"file://{repo}"
    bundle = tmp_path / "bundle"
    # A paper names the repository: its public link cannot be reached here, so --repo-url
    # names the local fixture (a paper's own file:// links are never followed).
    paper = tmp_path / "paper.md"
    paper.write_text("# Sixcalc\n\nCode: https://github.com/example/sixcalc\n")

    made = run(
        tmp_path / "online", "bundle", str(paper), "--repo-url", source, "--output", str(bundle)
    )

    assert made.returncode == 0, made.stderr
    manifest = read_manifest(bundle)
    [entry] = manifest.sources
    assert entry.source == source and entry.commit is not None
    assert entry.paper == str(paper)
    assert any(r.startswith("six==") for r in entry.requirements)
    files = {p.name for p in (bundle / "wheels").iterdir()}
    assert any(f.startswith("six-") for f in files)
    assert any(f.startswith("setuptools-") for f in files)  # the source build's backend
    assert any(f.startswith("metaserver-") and f.endswith(".whl") for f in files)

    # A new home, no cache, and no network: everything comes from the bundle.
    offline = run(
        tmp_path / "offline",
        "convert", source, "--bundle", str(bundle), "--json",
        prefix=("unshare", "-n", "--"),
    )  # fmt: skip
    assert offline.returncode == 0, offline.stderr[-3000:]
    report = json.loads(offline.stdout)
    assert report["status"] == "success" and report["tools_passed"] >= 3
    assert report["environment"]["strategy"] == "source"
    # The paper converts offline too: its repository is the one the bundle holds.
    from_paper = run(
        tmp_path / "offline",
        "convert", str(paper), "--repo-url", source, "--bundle", str(bundle), "--json",
        "--name", "sixcalc-paper",
        prefix=("unshare", "-n", "--"),
    )  # fmt: skip
    assert from_paper.returncode == 0, from_paper.stderr[-3000:]
    paper_report = json.loads(from_paper.stdout)
    assert paper_report["status"] == "success" and paper_report["repository"] == source


def test_a_bad_paper_or_repo_url_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    repo = make_package_repo(tmp_path / "calc", "calc", "calc", CALC_MODULE)
    nolinks = tmp_path / "nolinks.md"
    nolinks.write_text("# A paper about nothing in particular\n")
    bundle = tmp_path / "bundle"
    refusals = {
        "links no repository": [str(nolinks)],
        "applies only to a paper SOURCE": [f"file://{repo}", "--repo-url", f"file://{repo}"],
        "--repo-url (repo_url): SOURCE is not": [str(nolinks), "--repo-url", "./nowhere"],
    }
    for message, args in refusals.items():
        done = run(tmp_path / "home", "bundle", *args, "--output", str(bundle))
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert not bundle.exists()
