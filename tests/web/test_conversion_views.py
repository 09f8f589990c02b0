"""The conversions view: stages named as the pipeline names them, states in words, the
kept failures with their reports, and no host path."""

from __future__ import annotations

import asyncio
from pathlib import Path

from metaserver.contracts import ConversionReport, Failure
from metaserver.pipeline import STAGES as PIPELINE_STAGES
from metaserver.registry.failed import keep_failed
from metaserver.server.jobs import Job
from metaserver.settings import Settings
from metaserver.web.conversion_views import (
    STAGES,
    conversions_view,
    failed_report_view,
    failed_view,
)


def test_the_page_names_the_pipeline_stages() -> None:
    assert STAGES == PIPELINE_STAGES


async def test_a_running_job_shows_its_stage_and_asks_to_be_refreshed(tmp_path: Path) -> None:
    job = Job(id="abc123", source=f"file://{tmp_path}/repo", ref=None)
    await job.progress("analysis", 2, 7)
    html = conversions_view([job], tmp_path / "home")
    assert 'data-refresh="1000"' not in html  # no task: nothing runs
    assert '<li class="done">fetch</li>' in html and '<li class="todo">register</li>' in html
    assert str(tmp_path) not in html


async def test_a_job_asked_to_stop_says_so_and_offers_no_second_cancel(tmp_path: Path) -> None:
    job = Job(id="abc123", source="pypi:calcpack", ref=None)
    job.task = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    try:
        await job.progress("environment", 1, 7)
        running = conversions_view([job], tmp_path / "home")
        assert "running (environment)" in running and 'class="cancel"' in running
        job.stopping = True
        stopping = conversions_view([job], tmp_path / "home")
        assert "cancelling (environment)" in stopping and 'class="cancel"' not in stopping
        assert 'data-refresh="1000"' in stopping  # still live until it has cleaned up
    finally:
        job.task.cancel()


def test_failed_conversions_are_listed_with_their_reports(settings: Settings) -> None:
    source = settings.home.parent / "somewhere" / "broken"
    report = ConversionReport(
        server="broken",
        source=str(source),
        failure=Failure(type="import_error", detail=f"no module named broken in {source}"),
    )
    keep_failed(settings, report, "feedf00d")
    listing = failed_view(settings)
    assert "broken-feedf00d" in listing and "import_error" in listing
    detail = failed_report_view(settings, "broken-feedf00d")
    assert detail is not None and "no module named broken" in detail
    assert str(source) not in listing + detail
    assert failed_report_view(settings, "../../etc") is None
