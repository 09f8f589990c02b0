"""git for exports: one identity and date, no configuration of the user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.exceptions import ExportError
from metaserver.export.git import run_git

pytestmark = pytest.mark.integration


def test_git_runs_as_metaserver_on_the_given_date_without_user_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "user"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Someone Else\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    ident = run_git(["var", "GIT_AUTHOR_IDENT"], tmp_path, 1_796_000_000).decode().strip()
    assert ident == "metaserver <metaserver@localhost> 1796000000 +0000"
    with pytest.raises(ExportError):  # unset for git: the user's ~/.gitconfig is not read
        run_git(["config", "--get", "user.name"], tmp_path, 0)


def test_a_failing_command_says_why(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"git rev-parse failed: .*not a git repository"):
        run_git(["rev-parse", "--git-dir"], tmp_path, 0)
