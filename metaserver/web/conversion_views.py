"""Conversions as fragments: the start form, every job with its stages (live while one
runs), and the failed conversions kept in the home with their reports."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from metaserver.exceptions import UserError
from metaserver.input_limits import load_json, read_text_file
from metaserver.registry.failed import REPORT, entries
from metaserver.server.conversion_tools import describe_failure
from metaserver.server.jobs import Job
from metaserver.server.public import public_report
from metaserver.settings import Settings
from metaserver.web.markup import code, link, part, shown, table, when

# The pipeline's stages (metaserver/pipeline.py STAGES), named here so that the page does not
# import the pipeline; tests/web/test_conversion_views.py checks that the two agree.
STAGES = ("fetch", "environment", "analysis", "design", "generate", "validate", "register")
_FORM = (
    '<form class="convert"><input type="text" name="source" required placeholder="git URL, '
    'local directory, archive or pypi:NAME"><input type="text" name="ref" placeholder="ref '
    '(optional)"><button type="submit">Convert</button></form>'
)


def conversions_view(jobs: list[Job], home: Path) -> str:
    """The start form and the server's conversions, newest first; while one runs the
    fragment asks to be reloaded (``data-refresh``)."""
    rows = [_job_row(job, home) for job in reversed(jobs)]
    running = any(job.running for job in jobs)
    refresh = ' data-refresh="1000"' if running else ""
    listing = (
        table(["job", "source", "state", "stages", "seconds", ""], rows, "jobs")
        if rows
        else '<p class="empty">No conversion since the server started.</p>'
    )
    return f'<section id="conversions"{refresh}><h2>Conversions</h2>{_FORM}{listing}</section>'


def _job_row(job: Job, home: Path) -> list[str]:
    status = job.status(describe_failure)
    report = status["report"] or {}
    state = status["state"]
    if state == "succeeded":
        server = str(report.get("server", ""))
        label = "registered " + link(f"#/server/{part(server)}", shown(server, home))
    elif state == "failed":
        failure = report.get("failure") or {}
        label = f"failed: {shown(failure.get('type', ''), home)}"
    elif state == "error":
        label = f"refused: {shown(status['error'] or '', home)}"
    elif state == "cancelled":
        label = "cancelled"
    else:
        doing = f": {job.tool}" if job.tool else ""
        # Asked to stop, a job still runs while it cleans up: it says so, and offers no
        # second Cancel.
        verb = "cancelling" if job.stopping else "running"
        label = f"{verb} ({shown(job.stage + doing, home)})"
    action = (
        f'<button type="button" class="cancel" data-job="{html.escape(job.id)}">Cancel</button>'
        if job.running and not job.stopping
        else ""
    )
    return [
        shown(job.id, home),
        shown(job.source, home),
        f'<span class="state {state}" data-state="{state}">{label}</span>',
        _stages(job, state),
        f"{status['elapsed_seconds']:.0f}",
        action,
    ]


def _stages(job: Job, state: str) -> str:
    reached = STAGES.index(job.stage) if job.stage in STAGES else -1
    items = []
    for index, stage in enumerate(STAGES):
        if state == "succeeded" or index < reached:
            mark = "done"
        elif index == reached and job.running:
            mark = "current"
        else:
            mark = "todo"
        items.append(f'<li class="{mark}">{stage}</li>')
    return f'<ol class="stages">{"".join(items)}</ol>'


def failed_view(settings: Settings) -> str:
    """The failed conversions kept in the home, newest first."""
    rows = []
    for entry in reversed(entries(settings)):
        report = read_failed(entry, settings.home)
        failure = (report or {}).get("failure") or {}
        detail = str(failure.get("detail", "no report was kept"))
        rows.append(
            [
                link(f"#/failed/{part(entry.name)}", shown(entry.name, settings.home)),
                shown((report or {}).get("source", ""), settings.home),
                shown(failure.get("type", ""), settings.home),
                shown(detail.splitlines()[0][:200] if detail else "", settings.home),
                when(_mtime(entry)),
            ]
        )
    if not rows:
        listing = '<p class="empty">None kept.</p>'
    else:
        listing = table(["conversion", "source", "failure", "detail", "ended"], rows, "failed")
    return f'<section id="failed"><h2>Failed conversions</h2>{listing}</section>'


def failed_report_view(settings: Settings, name: str) -> str | None:
    """One kept failure's report (None: no such entry)."""
    entry = next((e for e in entries(settings) if e.name == name), None)
    if entry is None:
        return None
    home = settings.home
    report = read_failed(entry, home)
    if report is None:
        empty = "<p class='empty'>No report was kept.</p>"
        return f"<section><h2>{shown(name, home)}</h2>{empty}</section>"
    failure = report.get("failure") or {}
    rows = [
        [
            shown(tool.get("name", ""), home),
            shown(tool.get("status", ""), home),
            shown(tool.get("failure_type") or "", home),
            shown((tool.get("error") or "")[:300], home),
        ]
        for tool in report.get("tools") or []
        if isinstance(tool, dict)
    ]
    return (
        f'<section id="failed-report"><h2>{shown(name, home)}</h2>'
        f"<p>source {shown(report.get('source', ''), home)}</p>"
        f'<p class="error">{shown(failure.get("type", ""), home)}: '
        f"{shown(failure.get('detail', ''), home)}</p>"
        f"<h3>Tools</h3>{table(['tool', 'status', 'failure', 'error'], rows, 'tools')}"
        f"<details><summary>The whole report</summary>{code(report, home)}</details></section>"
    )


def read_failed(entry: Path, home: Path) -> dict[str, Any] | None:
    """A kept failure's report as a client may see it, or None when unreadable."""
    try:
        report = load_json(read_text_file(entry / REPORT, "a failed report"), "a failed report")
    except UserError:
        return None
    if not isinstance(report, dict):
        return None
    return public_report(report, home)


def _mtime(entry: Path) -> float:
    try:
        return os.stat(entry / REPORT).st_mtime
    except OSError:
        return 0.0
