"""Local directory sources (agents/fetch/local.py): the copy, and the content fingerprint
that lets a repeated conversion of an unchanged tree reuse its stored environment."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fetch_helpers import Origin, dest_for, make_settings, snapshot
from fixture_repos import make_calc_repo

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.local import tree_fingerprint
from metaserver.agents.fetch.source import parse_source
from metaserver.exceptions import SourceError
from metaserver.settings import Settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("def f():\n    return 1\n")
    (root / "README.md").write_text("# pkg\n")
    os.symlink("README.md", root / "README.rst")
    return root


def test_identical_trees_at_different_paths_share_a_fingerprint(tmp_path: Path) -> None:
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert tree_fingerprint(one) == tree_fingerprint(two)
    assert tree_fingerprint(one).startswith("local:")


def test_content_names_links_and_modes_change_the_fingerprint(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    seen = {tree_fingerprint(root)}
    (root / "pkg" / "__init__.py").write_text("def f():\n    return 2\n")
    seen.add(tree_fingerprint(root))
    (root / "pkg" / "__init__.py").rename(root / "pkg" / "core.py")
    seen.add(tree_fingerprint(root))
    (root / "README.rst").unlink()
    os.symlink("pkg", root / "README.rst")
    seen.add(tree_fingerprint(root))
    (root / "pkg" / "core.py").chmod(0o755)
    seen.add(tree_fingerprint(root))
    assert len(seen) == 5


async def test_fetching_a_local_directory_twice_gives_one_fingerprint(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    settings = Settings(home=tmp_path / "home")
    source = parse_source(str(repo), None)
    first = await fetch(source, tmp_path / "w1", settings)
    second = await fetch(source, tmp_path / "w2", settings)
    assert first.fingerprint and first.fingerprint == second.fingerprint
    (repo / "calcpack" / "__init__.py").write_text("# changed\n", encoding="utf-8")
    third = await fetch(source, tmp_path / "w3", settings)
    assert third.fingerprint != first.fingerprint


def build_local_tree(root: Path, outside: Path) -> None:
    (root / "pkg" / "build").mkdir(parents=True)  # a subpackage called build: kept
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "build" / "__init__.py").write_text("")
    (root / "pkg" / "data.txt").write_text("data")
    (root / "setup.cfg").write_text("[metadata]\nname = local-demo\nversion = 1.2\n")
    for skipped in (".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache"):
        (root / skipped).mkdir()
        (root / skipped / "junk.py").write_text("")
    for skipped in ("build", "dist"):
        (root / skipped).mkdir()
        (root / skipped / "artifact.py").write_text("")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "x.pyc").write_bytes(b"")
    (root / "otherenv").mkdir()
    (root / "otherenv" / "pyvenv.cfg").write_text("home = /usr\n")
    outside.write_text("secret")
    (root / "pkg" / "inside-link.txt").symlink_to("data.txt")
    (root / "pkg" / "outside-link.txt").symlink_to(outside)
    (root / "pkg" / "relative-escape").symlink_to("../../outside.txt")
    (root / "pkg" / "dir-escape").symlink_to(outside.parent)


async def test_local_copy_skips_junk_and_escaping_links(tmp_path: Path) -> None:
    original = tmp_path / "src-tree"
    original.mkdir()
    build_local_tree(original, tmp_path / "outside.txt")
    before = snapshot(original)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(str(original)), dest, make_settings(tmp_path))

    assert workspace.commit is None
    assert workspace.distribution == "local-demo"
    assert workspace.version == "1.2"
    assert (dest / "pkg" / "__init__.py").is_file()
    assert (dest / "pkg" / "build" / "__init__.py").is_file()
    assert (dest / "setup.cfg").is_file()
    for skipped in (".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache"):
        assert not (dest / skipped).exists(), skipped
    assert not (dest / "build").exists()
    assert not (dest / "dist").exists()
    assert not (dest / "otherenv").exists()
    assert not (dest / "pkg" / "__pycache__").exists()
    assert (dest / "pkg" / "inside-link.txt").is_symlink()
    assert (dest / "pkg" / "inside-link.txt").read_text() == "data"
    assert not os.path.lexists(dest / "pkg" / "outside-link.txt")
    assert not os.path.lexists(dest / "pkg" / "relative-escape")
    assert not os.path.lexists(dest / "pkg" / "dir-escape")  # never followed out of the tree
    assert snapshot(original) == before, "the original directory is untouched"


async def test_local_git_checkout_records_head(tmp_path: Path, origin: Origin) -> None:
    before = snapshot(origin.path)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(str(origin.path)), dest, make_settings(tmp_path))
    assert workspace.source.kind == "local"
    assert workspace.commit == origin.main
    assert not (dest / ".git").exists()
    assert (dest / "demo_pkg" / "__init__.py").is_file()
    assert snapshot(origin.path) == before


async def test_local_destination_inside_the_source(tmp_path: Path) -> None:
    original = tmp_path / "project"
    original.mkdir()
    (original / "tool.py").write_text("def f(): ...\n")
    dest = original / "state" / "ws"
    workspace = await fetch(parse_source(str(original)), dest, make_settings(tmp_path))
    assert (workspace.path / "tool.py").is_file()
    assert not (workspace.path / "state" / "ws").exists()


async def test_local_directory_without_python_is_refused(tmp_path: Path) -> None:
    original = tmp_path / "notes"
    (original / "docs").mkdir(parents=True)
    (original / "README.md").write_text("# notes\n")
    (original / "docs" / "index.md").write_text("hi\n")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no Python package found in"):
        await fetch(parse_source(str(original)), dest, make_settings(tmp_path))
    assert not dest.exists()
    assert (original / "README.md").is_file()
