"""Local directory sources: the copy, and the content fingerprint that lets a repeated
conversion of an unchanged tree reuse its stored environment."""

from __future__ import annotations

import os
from pathlib import Path

from fixture_repos import make_calc_repo

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.local import tree_fingerprint
from metaserver.agents.fetch.source import parse_source
from metaserver.settings import Settings


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
