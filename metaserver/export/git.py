"""git for exports: fixed argument lists, one identity and one date, no user configuration.

The patch and the branch are made by git itself, so that what a maintainer applies is what
``git format-patch`` writes. Every command runs without the user's or the system's
configuration (``format.signature``, ``diff.noprefix`` and their kind would change the
bytes) and with the conversion's date as both author and committer date.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from metaserver.exceptions import ExportError, UserError

__all__ = ["AUTHOR", "git_environment", "run_git"]

AUTHOR = ("metaserver", "metaserver@localhost")
_TIMEOUT = 120.0


def git_environment(date: int) -> dict[str, str]:
    """The environment every export's git runs with."""
    stamp = f"@{date} +0000"
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.devnull,  # no ~/.gitconfig
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": AUTHOR[0],
        "GIT_AUTHOR_EMAIL": AUTHOR[1],
        "GIT_COMMITTER_NAME": AUTHOR[0],
        "GIT_COMMITTER_EMAIL": AUTHOR[1],
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "LC_ALL": "C",
        "TZ": "UTC",
    }


def run_git(
    args: Sequence[str],
    cwd: Path,
    date: int,
    stdin: bytes | None = None,
    extra_env: dict[str, str] | None = None,
) -> bytes:
    """``git ARGS`` in ``cwd``; its stdout.

    Raises:
        UserError: git is not installed.
        ExportError: the command failed (its last stderr line says why).
    """
    binary = shutil.which("git")
    if binary is None:
        raise UserError("git is not installed: an export as a patch or a branch needs it")
    env = git_environment(date) | (extra_env or {})
    try:
        done = subprocess.run(
            [binary, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=env,
            timeout=_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ExportError(f"git {args[0]} took longer than {_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExportError(f"git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done.stdout
