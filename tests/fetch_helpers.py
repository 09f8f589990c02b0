"""What the fetch stage's tests share: settings, destinations, a git origin, snapshots."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixture_repos import git

from metaserver.settings import Settings

PYPROJECT = """\
[project]
name = "demo-pkg"
version = "{version}"
"""


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(home=tmp_path / "home", **overrides)


def dest_for(tmp_path: Path) -> Path:
    return tmp_path / "home" / "workspaces" / "ws"


@dataclass
class Origin:
    path: Path
    tagged: str  # first commit, tagged v0.1
    middle: str  # second commit: no tag, no branch tip
    main: str  # tip of main
    feature: str  # tip of branch "feature"

    @property
    def url(self) -> str:
        return f"file://{self.path}"


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with its size and mtime (symlinks not followed)."""
    found: dict[str, tuple[int, int]] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(directory) / name
            info = path.lstat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


def make_origin(tmp_path: Path) -> Origin:
    """A small repository: three commits on main, a tag, and a branch."""
    repo = tmp_path / "origin"
    (repo / "demo_pkg").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(version="0.1.0"))
    (repo / "demo_pkg" / "__init__.py").write_text("VERSION = '0.1.0'\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "tag", "v0.1")
    tagged = git(repo, "rev-parse", "HEAD")
    (repo / "demo_pkg" / "middle.py").write_text("X = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "second")
    middle = git(repo, "rev-parse", "HEAD")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(version="0.3.0"))
    git(repo, "commit", "-q", "-am", "third")
    main = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "demo_pkg" / "feature.py").write_text("FEATURE = True\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "feature")
    feature = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return Origin(repo, tagged, middle, main, feature)
