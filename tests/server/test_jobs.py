"""Conversions as jobs of the meta-server: they outlive impatient clients, are joined,
reported on and cancelled.

Most tests stand the pipeline in with a fake that waits for the test's signal (real
meta-server, real FastMCP clients); the last one runs the calc fixture through the real
pipeline behind the real HTTP server.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fixture_repos import make_calc_repo
from serving import serving_http

from metaserver.agents.validate.watch import calling
from metaserver.contracts import ConversionReport
from metaserver.registry.store import Registry
from metaserver.server.app import build_server
from metaserver.server.jobs import HEARTBEAT, ConversionCancelled, Job, JobTable
from metaserver.settings import Settings

pytestmark = pytest.mark.integration


class SlowPipeline:
    """Stands in for ``metaserver.pipeline.convert``: each conversion waits for ``release``."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.calls = 0
        self.cancelled = 0

    async def __call__(
        self, source: str, *, settings: Settings, progress: Any = None, **_: Any
    ) -> ConversionReport:
        self.calls += 1
        await progress("fetch", 0, 6)
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        await progress("register", 5, 6)
        register_fake(settings, "beta")
        return ConversionReport(server="beta", source=source, status="success", tools_passed=6)


@pytest.fixture
async def served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[FastMCP[Any], SlowPipeline, Settings]]:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    pipeline = SlowPipeline()
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    yield build_server(settings), pipeline, settings


async def _status(client: Client[Any], job_or_source: str) -> dict[str, Any]:
    result = await client.call_tool("conversion_status", {"job_or_source": job_or_source})
    answer: dict[str, Any] = result.structured_content or {}
    return answer


async def test_a_client_that_gives_up_leaves_a_conversion_that_registers(
    served: tuple[FastMCP[Any], SlowPipeline, Settings],
) -> None:
    server, pipeline, settings = served
    async with Client(server, mode="legacy") as client:
        with pytest.raises(Exception):  # noqa: B017 - the client's own timeout error
            await client.call_tool("convert_repo", {"source": "pypi:beta"}, timeout=1)
        assert pipeline.started.is_set()
        status = await _status(client, "pypi:beta")
        assert status["state"] == "running" and status["stage"] == "fetch"
        assert pipeline.cancelled == 0

        pipeline.release.set()
        deadline = time.monotonic() + 10
        while (status := await _status(client, status["job"]))["state"] == "running":
            assert time.monotonic() < deadline, status
            await asyncio.sleep(0.05)
        assert status["state"] == "succeeded" and status["report"]["server"] == "beta"
        # Registered and mounted with nobody waiting for it.
        assert [r.name for r in Registry(settings.registry_path).summaries()] == ["alpha", "beta"]
        assert (await client.call_tool("beta_add", {"a": 40, "b": 2})).data == 42


async def test_two_clients_converting_the_same_source_share_one_conversion(
    served: tuple[FastMCP[Any], SlowPipeline, Settings],
) -> None:
    server, pipeline, _ = served
    heard: dict[str, list[tuple[float, str | None]]] = {"first": [], "second": []}

    def recorder(who: str) -> Any:
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            heard[who].append((done, message))

        return on_progress

    async with (
        Client(server, mode="legacy") as first,
        Client(server, mode="legacy") as second,
    ):
        calls = asyncio.gather(
            first.call_tool(
                "convert_repo", {"source": "pypi:beta"}, progress_handler=recorder("first")
            ),
            second.call_tool(
                "convert_repo", {"source": "pypi:beta"}, progress_handler=recorder("second")
            ),
        )
        await asyncio.wait_for(pipeline.started.wait(), 10)
        # Long enough for a heartbeat: it repeats the stage with a progress that still grows.
        await asyncio.sleep(HEARTBEAT + 1)
        pipeline.release.set()
        one, two = await asyncio.wait_for(calls, 10)
    assert pipeline.calls == 1
    assert one.data["job"] == two.data["job"] and one.data["server"] == two.data["server"]
    for messages in heard.values():
        assert messages[0][1] == "fetch" and messages[-1] == (5, "register")
        assert len([m for _, m in messages if m == "fetch"]) >= 2, messages
        values = [done for done, _ in messages]
        assert values == sorted(values) and len(set(values)) == len(values), values


async def test_conversion_status_during_and_after(
    served: tuple[FastMCP[Any], SlowPipeline, Settings],
) -> None:
    server, pipeline, _ = served
    async with Client(server) as client:
        with pytest.raises(ToolError, match="no conversion job or source matches 'pypi:beta'"):
            await _status(client, "pypi:beta")
        call = asyncio.ensure_future(client.call_tool("convert_repo", {"source": "pypi:beta"}))
        await asyncio.wait_for(pipeline.started.wait(), 10)
        await asyncio.sleep(0.3)
        during = await _status(client, "pypi:beta")
        assert during["state"] == "running" and during["stage"] == "fetch"
        assert during["elapsed_seconds"] >= 0.2 and during["report"] is None
        assert during["tool"] is None  # the fake reports no tool being validated
        pipeline.release.set()
        report = (await asyncio.wait_for(call, 10)).data
        after = await _status(client, report["job"])
        assert after["state"] == "succeeded" and after["stage"] == "done"
        assert after["report"]["server"] == "beta" and after["error"] is None
        assert after["elapsed_seconds"] >= during["elapsed_seconds"]
        assert (await _status(client, "pypi:beta"))["job"] == report["job"]


async def test_status_and_heartbeat_name_the_tool_being_validated(
    served: tuple[FastMCP[Any], SlowPipeline, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, pipeline, _ = served

    async def validating(
        source: str, *, settings: Settings, progress: Any = None, **_: Any
    ) -> ConversionReport:
        await progress("validate", 4, 6)
        calling("add")  # what metaserver/agents/validate/calls.py says before each tool
        pipeline.started.set()
        await pipeline.release.wait()
        calling(None)
        return ConversionReport(server="beta", source=source, status="failed")

    monkeypatch.setattr("metaserver.pipeline.convert", validating)
    heard: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    async with Client(server, mode="legacy") as client:
        call = asyncio.ensure_future(
            client.call_tool("convert_repo", {"source": "pypi:beta"}, progress_handler=on_progress)
        )
        await asyncio.wait_for(pipeline.started.wait(), 10)
        status = await _status(client, "pypi:beta")
        assert (status["stage"], status["tool"]) == ("validate", "add")
        await asyncio.sleep(HEARTBEAT + 1)
        assert heard[0] == "validate" and "validate: calling add" in heard[1:], heard
        pipeline.release.set()
        assert (await asyncio.wait_for(call, 10)).data["status"] == "failed"
        after = await _status(client, "pypi:beta")
        assert after["state"] == "failed" and after["tool"] is None


async def test_cancel_conversion_stops_it_and_registers_nothing(
    served: tuple[FastMCP[Any], SlowPipeline, Settings],
) -> None:
    server, pipeline, settings = served
    async with Client(server, mode="legacy") as client:
        call = asyncio.ensure_future(client.call_tool("convert_repo", {"source": "pypi:beta"}))
        await asyncio.wait_for(pipeline.started.wait(), 10)
        job = (await _status(client, "pypi:beta"))["job"]
        with pytest.raises(ToolError, match="no conversion job 'pypi:beta'"):
            await client.call_tool("cancel_conversion", {"job": "pypi:beta"})

        cancelled = await client.call_tool("cancel_conversion", {"job": job})
        assert cancelled.data == {"job": job, "source": "pypi:beta", "state": "cancelled"}
        assert pipeline.cancelled == 1
        # The request that followed the job is told, not left hanging.
        with pytest.raises(ToolError, match=f"conversion {job} was cancelled"):
            await asyncio.wait_for(call, 10)
        assert (await _status(client, job))["state"] == "cancelled"
        with pytest.raises(ToolError, match="is not running"):
            await client.call_tool("cancel_conversion", {"job": job})
        assert [r.name for r in Registry(settings.registry_path).summaries()] == ["alpha"]


async def test_a_conversion_asked_while_another_cleans_up_from_a_cancel_starts_anew() -> None:
    # MCP tasks/cancel marks the task cancelled at once while the job still deletes its
    # files: a convert_repo for the same source in that window must not join the dying job.
    cleaning, cleaned = asyncio.Event(), asyncio.Event()

    async def run(job: Job) -> ConversionReport:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cleaning.set()
            await cleaned.wait()
            raise
        raise AssertionError("never released")

    async def finish(job: Job) -> ConversionReport:
        return ConversionReport(server="beta", source=job.source, status="success")

    table = JobTable()
    first, started = table.start("pypi:beta", None, run)
    assert started and table.joinable("pypi:beta", None, None) is first
    await asyncio.sleep(0)
    stopping = asyncio.ensure_future(table.cancel(first))
    await asyncio.wait_for(cleaning.wait(), 10)
    assert first.running and table.joinable("pypi:beta", None, None) is None

    second, started = table.start("pypi:beta", None, finish)
    assert started and second is not first
    assert (await second.follow(_ignore)).status == "success"
    cleaned.set()
    await asyncio.wait_for(stopping, 10)
    assert (first.state, second.state) == ("cancelled", "succeeded")
    with pytest.raises(ConversionCancelled):
        await first.follow(_ignore)


async def _ignore(done: float, total: float, message: str) -> None:
    return None


async def test_a_real_conversion_outlives_a_client_that_times_out(tmp_path: Path) -> None:
    """The calc fixture through the real pipeline, behind the real HTTP server: one client
    gives up after 5 s, a second joins and hears progress at least every 5 s."""
    repo = make_calc_repo(tmp_path / "calc")
    settings = Settings(home=tmp_path / "home")
    source = f"file://{repo}"
    gaps: list[float] = []
    last = [0.0]

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        gaps.append(now - last[0])
        last[0] = now

    async with serving_http(settings) as url:
        async with Client(url, mode="legacy") as impatient:
            with pytest.raises(Exception):  # noqa: B017 - the client's own timeout error
                await impatient.call_tool("convert_repo", {"source": source}, timeout=5)
        # The impatient client is gone; the conversion is not.
        async with Client(url, mode="legacy", timeout=600) as patient:
            running = await _status(patient, source)
            assert running["state"] == "running" and running["elapsed_seconds"] >= 5
            last[0] = time.monotonic()
            result = await patient.call_tool(
                "convert_repo", {"source": source}, progress_handler=on_progress
            )
            report = result.structured_content or {}
            assert report["status"] == "success", report.get("failure")
            assert report["job"] == running["job"]  # joined, not started again
            assert gaps and max(gaps) <= 5.0, gaps
            print(f"progress: {len(gaps)} notifications, longest gap {max(gaps):.2f} s")
            done = await _status(patient, running["job"])
            assert done["state"] == "succeeded" and done["report"]["server"] == "calcpack"
            assert (await patient.call_tool("calcpack_add", {"a": 40, "b": 2})).data == 42
