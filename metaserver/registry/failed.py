"""What is kept of a failed conversion: its report and generated server, the newest few.

A conversion that fails after fetch has made a workspace (a copy of the repository), an
environment (hundreds of MB for a scientific stack) and scratch directories, none of them
registered. Nothing will use them again: a new conversion of the same source makes its own
(and reuses the stores, which are separate, :mod:`metaserver.agents.environment.cache`). So
they are deleted when the conversion ends, and only what a user needs to understand the
failure stays, under ``home/failed/<name>-<token>/``:

* ``report.json``: the conversion report (``output_dir`` names the kept server);
* ``server/``: the generated server directory if one was rendered (its ``server.py``,
  ``tools.json`` and tests show what was tried), with only the logs of its ``work/``.

At most ``Settings.keep_failed`` such entries stay, the oldest go first; 0 keeps none. A
conversion's own environment is a hard-linked copy of a stored one at most, so deleting it
unlinks names and never touches the store or another server's environment.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from metaserver.contracts import ConversionReport
from metaserver.fs import remove_tree
from metaserver.registry.files import discard_conversion
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

REPORT = "report.json"
SERVER = "server"


def keep_failed(settings: Settings, report: ConversionReport, token: str) -> Path | None:
    """Delete what failed conversion ``token`` made but its report and server (kept in the
    failed area, trimmed to ``settings.keep_failed``); the entry kept, or None.

    ``report.output_dir`` is pointed at the kept server directory (None when none is kept).
    """
    name = report.server
    server = settings.servers_dir / f"{name}-{token}"
    entry: Path | None = None
    report.output_dir = None
    if settings.keep_failed > 0:
        entry = settings.failed_dir / f"{name}-{token}"
        entry.mkdir(parents=True, exist_ok=True)
        if server.is_dir() and not server.is_symlink():
            kept = entry / SERVER
            server.rename(kept)  # the same file system: the home
            _keep_only_logs(kept / "work")
            report.output_dir = str(kept)
        staging = entry / f".{REPORT}.partial"
        staging.write_text(report.model_dump_json(indent=2))
        staging.replace(entry / REPORT)
    discard_conversion(settings, name, token)
    evict(settings)
    return entry


def _keep_only_logs(work: Path) -> None:
    """Empty a server's ``work/`` but for its logs (what its tools wrote can be large)."""
    if not work.is_dir() or work.is_symlink():
        return
    for item in work.iterdir():
        if not (item.is_file() and not item.is_symlink() and item.suffix == ".log"):
            remove_tree(item)


def entries(settings: Settings) -> list[Path]:
    """The kept failed conversions, oldest first."""
    if not settings.failed_dir.is_dir():
        return []
    found = [p for p in settings.failed_dir.iterdir() if p.is_dir() and not p.is_symlink()]
    return sorted(found, key=_age)


def _age(entry: Path) -> tuple[float, str]:
    try:
        return (os.stat(entry / REPORT).st_mtime, entry.name)
    except OSError:
        return (0.0, entry.name)  # no report: a half-kept entry goes first


def evict(settings: Settings) -> list[Path]:
    """Remove the oldest kept failures beyond ``settings.keep_failed``; what was removed."""
    kept = entries(settings)
    doomed = kept[: max(0, len(kept) - settings.keep_failed)]
    for entry in doomed:
        remove_tree(entry)
    if doomed:
        logger.info("removed %d old failed conversions from %s", len(doomed), settings.failed_dir)
    return doomed
