"""The patch, the branch and the files of a change, made and applied with real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from export_fixtures import make_export_repo
from fixture_repos import git

from metaserver.exceptions import ExportError, UserError
from metaserver.export.packaging import packaging_edit
from metaserver.export.patch import format_patch, make_branch, write_files
from metaserver.export.tree import Change

pytestmark = pytest.mark.integration

DATE = 1_796_000_000  # 2026-11-30 UTC


def _change(repo: Path, commit: str, original: str | None = None) -> Change:
    edit = packaging_edit(repo, ["fastmcp==4.1.6"], "mcp")
    files = {
        "mcp/README.md": b"# A server\n",
        "mcp/server.py": b"print('serving')\n",
        "mcp/work/data.bin": bytes(range(256)),  # a data file need not be text
        edit.path: edit.text.encode(),
    }
    return Change(
        folder="mcp",
        files=dict(sorted(files.items())),
        originals={edit.path: (original or edit.original or "").encode()},
        packaging=edit,
        message="Add an MCP server for exportcalc\n\nGenerated, and proven.\n",
        date=DATE,
        commit=commit,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_export_repo(tmp_path / "origin")


def _clone(repo: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(repo), str(where)], check=True)
    return where


def test_the_patch_applies_with_git_am_on_the_commit(repo: Path, tmp_path: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD")
    change = _change(repo, commit)
    patch = format_patch(change)
    assert patch.startswith("From 0000000000000000000000000000000000000000 ")
    assert "Subject: [PATCH] Add an MCP server for exportcalc" in patch
    assert patch == format_patch(change)  # the same bytes again
    clone = _clone(repo, tmp_path / "clone")
    (tmp_path / "change.patch").write_text(patch)
    git(clone, "am", "-q", str(tmp_path / "change.patch"))
    assert git(clone, "rev-parse", "HEAD~1") == commit
    changed = git(clone, "diff", "--name-only", commit, "HEAD").splitlines()
    assert changed == sorted(change.files)  # nothing else
    for path, data in change.files.items():
        assert (clone / path).read_bytes() == data
    assert git(clone, "log", "-1", "--format=%an %at %s") == (
        f"metaserver {DATE} Add an MCP server for exportcalc"
    )


def test_the_users_git_configuration_changes_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change = _change(repo, git(repo, "rev-parse", "HEAD"))
    plain = format_patch(change)
    home = tmp_path / "user"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[format]\n\tsignature = mine\n[diff]\n\tnoprefix = true\n[user]\n\tname = Someone\n"
    )
    monkeypatch.setenv("HOME", str(home))
    assert format_patch(change) == plain


def test_a_branch_is_committed_without_touching_the_checkout(repo: Path, tmp_path: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD")
    clone = _clone(repo, tmp_path / "clone")
    (clone / "README.md").write_text("a local edit, not committed\n")
    head = git(clone, "rev-parse", "HEAD")
    change = _change(repo, commit)
    made = make_branch(change, clone, "add-mcp-server")
    assert git(clone, "rev-parse", "add-mcp-server") == made
    assert git(clone, "rev-parse", "add-mcp-server~1") == commit
    assert git(clone, "rev-parse", "HEAD") == head
    assert git(clone, "status", "--porcelain") == "M README.md"  # only the user's edit
    assert git(clone, "diff", "--name-only", commit, made).splitlines() == sorted(change.files)
    shown = git(clone, "show", f"{made}:pyproject.toml")
    assert shown == change.files["pyproject.toml"].decode().rstrip("\n")
    assert git(clone, "log", "-1", "--format=%s", made) == "Add an MCP server for exportcalc"
    with pytest.raises(UserError, match="already exists"):
        make_branch(change, clone, "add-mcp-server")


def test_a_branch_is_refused_where_it_cannot_be_made(repo: Path, tmp_path: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD")
    change = _change(repo, commit)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UserError, match="not a git repository"):
        make_branch(change, plain, "b")
    with pytest.raises(UserError, match="not a valid branch name"):
        make_branch(change, repo, "bad..name")
    other = make_export_repo(tmp_path / "other", name="othercalc", package="othercalc")
    with pytest.raises(UserError, match=f"does not hold commit {commit}"):
        make_branch(change, other, "b")
    # The converted tree's pyproject is not the commit's: the change does not apply there.
    drifted = _change(repo, commit, original="[project]\nname = 'elsewhere'\n")
    with pytest.raises(UserError, match="does not apply"):
        make_branch(drifted, repo, "b")
    assert "b" not in git(repo, "branch", "--list", "b")


def test_files_are_written_at_their_repository_paths(repo: Path, tmp_path: Path) -> None:
    change = _change(repo, git(repo, "rev-parse", "HEAD"))
    written = write_files(change, tmp_path / "out")
    assert written == list(change.files)
    for path, data in change.files.items():
        assert (tmp_path / "out" / path).read_bytes() == data
    with pytest.raises(UserError, match="not an empty directory"):
        write_files(change, tmp_path / "out")
    escaping = Change(
        folder="mcp",
        files={"../outside": b"x"},
        originals={},
        packaging=change.packaging,
        message="m\n",
        date=DATE,
        commit=None,
    )
    with pytest.raises(ExportError, match="outside"):
        write_files(escaping, tmp_path / "fresh")
    assert not (tmp_path / "outside").exists()
