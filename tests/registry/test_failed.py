"""What a failed conversion leaves: its report and server in home/failed/, the newest few."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from metaserver.contracts import ConversionReport, Failure
from metaserver.registry.failed import entries, keep_failed
from metaserver.settings import Settings


def _made_by(settings: Settings, name: str, token: str) -> list[Path]:
    """The directories a conversion makes, with something in each."""
    made = []
    for parent in (settings.servers_dir, settings.environments_dir, settings.workspaces_dir):
        for path in (parent / f"{name}-{token}", parent / f".{name}-{token}.build"):
            (path / "sub").mkdir(parents=True)
            made.append(path)
    server = settings.servers_dir / f"{name}-{token}"
    (server / "server.py").write_text("# generated")
    (server / "work" / "outputs").mkdir(parents=True)
    (server / "work" / "outputs" / "big.bin").write_bytes(b"x" * 1000)
    (server / "work" / "server.log").write_text("Traceback: why it failed")
    return made


def _failed(name: str) -> ConversionReport:
    return ConversionReport(
        server=name,
        source=f"file:///{name}",
        status="failed",
        failure=Failure(type="untoolable_repo", detail="2 tools passed validation"),
    )


def test_a_failure_keeps_report_and_server_and_deletes_the_rest(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    made = _made_by(settings, "calc", "aaaa")
    other = _made_by(settings, "calc", "bbbb")  # another conversion's: untouched
    stored = settings.environment_store / "key" / "lib.so"
    stored.parent.mkdir(parents=True)
    stored.write_text("shared")
    stored.chmod(0o444)
    linked = settings.environments_dir / "calc-aaaa" / "lib.so"
    os.link(stored, linked)  # a hard-linked copy of a stored environment's file
    settings.environments_dir.joinpath("calc-aaaa").chmod(0o555)  # frozen, as built
    report = _failed("calc")

    entry = keep_failed(settings, report, "aaaa")

    assert entry == settings.failed_dir / "calc-aaaa"
    assert not any(p.exists() for p in made)
    assert all(p.exists() for p in other)
    assert stored.read_text() == "shared" and stat.S_IMODE(stored.stat().st_mode) == 0o444
    kept = ConversionReport.model_validate_json((entry / "report.json").read_text())
    assert kept.failure == report.failure and kept.output_dir == str(entry / "server")
    assert (entry / "server" / "server.py").read_text() == "# generated"
    assert [p.name for p in (entry / "server" / "work").iterdir()] == ["server.log"]


def test_only_the_newest_failures_are_kept(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", keep_failed=2)
    for index, token in enumerate(("aaaa", "bbbb", "cccc")):
        _made_by(settings, "calc", token)
        entry = keep_failed(settings, _failed("calc"), token)
        assert entry is not None
        os.utime(entry / "report.json", (1000 + index, 1000 + index))
    assert [p.name for p in entries(settings)] == ["calc-bbbb", "calc-cccc"]
    assert sorted(p.name for p in settings.servers_dir.iterdir()) == []


def test_keep_failed_0_keeps_nothing(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", keep_failed=0)
    made = _made_by(settings, "calc", "aaaa")
    report = _failed("calc")
    assert keep_failed(settings, report, "aaaa") is None
    assert report.output_dir is None
    assert not any(p.exists() for p in made) and not settings.failed_dir.exists()
