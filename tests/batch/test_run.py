"""``metaserver batch`` end to end: real conversions of fixture repositories on a local Ray;
one failing source never stops the others; a second run, on the local pool, skips what is
registered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def batch(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("METASERVER_", "RAY_"))}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend  # the backend under test
    env["METASERVER_HOME"] = str(home)
    return subprocess.run(
        [METASERVER, "batch", *args], capture_output=True, text=True, env=env, timeout=900
    )


def sources(tmp_path: Path, names: list[str]) -> tuple[Path, list[str]]:
    """A batch file: a git fixture repository per name, then a directory with no package."""
    listed = []
    for name in names:
        repo = make_calc_repo(tmp_path / name, name=name, package=name.replace("-", "_"))
        listed.append(f"file://{repo}")
    empty = tmp_path / "no-package"
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing to import\n")
    listed.append(str(empty))
    listing = tmp_path / "sources.txt"
    listing.write_text("# fixtures\n" + "\n".join(listed) + "\n")
    return listing, listed


def rows_by_source(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, object]]:
    rows = json.loads(done.stdout)
    assert all(
        set(row) == {"source", "status", "server", "tools_passed", "seconds", "failure"}
        for row in rows
    )
    return {row["source"]: row for row in rows}


@pytest.mark.integration
def test_ray_batch_registers_the_good_reports_the_bad_and_resumes(tmp_path: Path) -> None:
    listing, (alpha, beta, bad) = sources(tmp_path, ["alpha-calc", "beta-calc"])
    home = tmp_path / "home"

    first = batch(home, str(listing), "--executor", "ray", "--concurrency", "2", "--json")

    assert first.returncode == 1, first.stderr  # one source failed
    rows = rows_by_source(first)
    assert [rows[s]["status"] for s in (alpha, beta, bad)] == ["success", "success", "failed"]
    assert {rows[alpha]["server"], rows[beta]["server"]} == {"alpha-calc", "beta-calc"}
    assert all(int(rows[s]["tools_passed"]) >= 3 for s in (alpha, beta))  # type: ignore[call-overload]
    assert "no-package" in str(rows[bad]["failure"]) or "Python" in str(rows[bad]["failure"])
    assert "[3/3]" in first.stderr  # a line per finished source, with a running total

    listed = subprocess.run(
        [METASERVER, "list", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "METASERVER_HOME": str(home)},
        check=True,
    )
    assert {s["name"] for s in json.loads(listed.stdout)} == {"alpha-calc", "beta-calc"}

    # The two environments hold one copy of each large file they share (shared_files.py).
    shared = [
        {p.name: p.stat().st_ino for p in env.rglob("_pydantic_core*.so")}
        for env in sorted((home / "environments").iterdir())
        if not env.name.startswith(".")
    ]
    assert len(shared) == 2 and shared[0] and shared[0] == shared[1]

    # The second run, on the local pool, skips what is registered and prints a table.
    again = batch(home, str(listing))
    assert again.returncode == 1, again.stderr
    lines = again.stdout.splitlines()
    assert lines[0].split()[:4] == ["source", "status", "tools", "seconds"]
    assert [line.split()[1] for line in lines[1:]] == ["skipped", "skipped", "failed"]
    assert f"skipped {alpha}: registered as alpha-calc@" in again.stderr


def test_ray_without_the_extra_is_a_clear_usage_error(tmp_path: Path) -> None:
    listing = tmp_path / "sources.txt"
    listing.write_text("pypi:textdistance==4.6.3\n")
    code = (
        "import sys; sys.modules['ray'] = None; from metaserver.cli import main; "
        f"sys.exit(main(['batch', {str(listing)!r}, '--executor', 'ray']))"
    )
    env = {**os.environ, "METASERVER_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 2
    assert "pip install 'metaserver[ray]'" in done.stderr
    assert "Traceback" not in done.stderr
