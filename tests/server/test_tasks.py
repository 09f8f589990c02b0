"""``convert_repo`` as an MCP task (SEP-2663), driven by the real fastmcp-tasks client.

The pipeline is replaced by a fake that waits for the test's signal, so a task can be seen
working, finishing, failing and being cancelled; the real pipeline runs as a task in
``test_serve_convert``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError
from fastmcp_tasks import call_tool_task
from mcp.client.subscriptions import listen
from serving import serving_http

from metaserver.contracts import ConversionReport
from metaserver.exceptions import UserError
from metaserver.registry.store import Registry
from metaserver.server.app import build_server
from metaserver.settings import Settings

pytestmark = pytest.mark.integration


class FakePipeline:
    """Stands in for ``metaserver.pipeline.convert``; each conversion waits for ``release``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = 0

    async def __call__(
        self, source: str, *, settings: Settings, progress: Any = None, **_: Any
    ) -> ConversionReport:
        if source == "bad":
            raise UserError(f"bad source; see {settings.home}/x")
        if source == "bug":
            raise RuntimeError(f"internal bug reading {settings.home}/registry.db")
        await progress("fetch", 0, 6)
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        await progress("register", 6, 6)
        register_fake(settings, "beta")
        return ConversionReport(server="beta", source=source, status="success", tools_passed=6)


@pytest.fixture
async def served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Client[Any], FakePipeline]]:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    pipeline = FakePipeline(settings)
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    async with Client(build_server(settings)) as client:
        assert client.protocol_version == "2026-07-28"
        yield client, pipeline


async def _wait_for(predicate: Any, what: str, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await predicate():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.05)


async def test_a_conversion_runs_as_a_task_without_blocking_other_calls(
    served: tuple[Client[Any], FakePipeline],
) -> None:
    client, pipeline = served
    async with listen(client.session, tools_list_changed=True) as events:
        task = await call_tool_task(client, "convert_repo", {"source": "pypi:beta"})
        await asyncio.wait_for(pipeline.started.wait(), 10)

        # The conversion holds no request open: other tools answer while it works.
        assert (await client.call_tool("alpha_add", {"a": 2, "b": 3})).data == 5
        servers = (await client.call_tool("list_servers", {})).data
        assert [s["name"] for s in servers] == ["alpha"]

        async def says_fetch() -> bool:
            status = await task.status()
            return status.status == "working" and status.status_message == "fetch"

        await _wait_for(says_fetch, "the task's status never showed the fetch stage")
        assert (await task.status()).poll_interval_ms == 1000

        pipeline.release.set()
        final = await task.wait(timeout=10)
        assert final.status == "completed"
        report = (await task.result()).data
        assert report["status"] == "success" and report["server"] == "beta"

        event = await asyncio.wait_for(events.__anext__(), 5)
        assert type(event).__name__ == "ToolsListChanged"
    assert (await client.call_tool("beta_add", {"a": 20, "b": 22})).data == 42


async def test_a_task_capable_client_calling_normally_gets_the_report(
    served: tuple[Client[Any], FakePipeline],
) -> None:
    client, pipeline = served
    pipeline.release.set()
    # fastmcp-tasks' client runs the task and polls it to the end behind call_tool.
    result = await client.call_tool("convert_repo", {"source": "pypi:beta"}, timeout=30)
    assert result.data["status"] == "success"


async def test_failed_tasks_carry_a_short_scrubbed_message(
    served: tuple[Client[Any], FakePipeline],
) -> None:
    client, pipeline = served
    home = str(pipeline.settings.home)
    for source, expected in (("bad", "bad source"), ("bug", "internal error")):
        task = await call_tool_task(client, "convert_repo", {"source": source})
        # A tool error is the tool's result (isError), so the task itself completed.
        assert (await task.wait(timeout=10)).status == "completed"
        with pytest.raises(ToolError) as caught:
            await task.result()
        message = str(caught.value)
        assert expected in message, message
        assert home not in message and "Traceback" not in message


async def test_cancelling_a_task_stops_the_conversion(
    served: tuple[Client[Any], FakePipeline],
) -> None:
    client, pipeline = served
    task = await call_tool_task(client, "convert_repo", {"source": "pypi:beta"})
    await asyncio.wait_for(pipeline.started.wait(), 10)
    await task.cancel()
    assert (await task.wait(timeout=10)).status == "cancelled"

    async def pipeline_cancelled() -> bool:
        return pipeline.cancelled == 1

    await _wait_for(pipeline_cancelled, "the pipeline was not cancelled")
    assert [r.name for r in Registry(pipeline.settings.registry_path).summaries()] == ["alpha"]


async def test_without_the_extension_convert_repo_runs_inline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast_settings(tmp_path / "home")
    pipeline = FakePipeline(settings)
    pipeline.release.set()
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    monkeypatch.setitem(sys.modules, "fastmcp_tasks", None)  # import fails
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("convert_repo", {"source": "pypi:beta"})
        assert result.data["status"] == "success"
        with pytest.raises(ToolError):  # the server refuses to make a task of it
            await call_tool_task(client, "convert_repo", {"source": "pypi:beta"})


async def test_an_engine_that_cannot_start_leaves_convert_repo_running_inline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The engine is imported on first need (issue 31): should that import fail where the
    package was found at start, a conversion still runs, as without the extension."""

    def broken() -> Any:
        raise ImportError("docket is broken")

    settings = fast_settings(tmp_path / "home")
    pipeline = FakePipeline(settings)
    pipeline.release.set()
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    monkeypatch.setattr("metaserver.server.tasks._engine", broken)
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("convert_repo", {"source": "pypi:beta"})
        assert result.data["status"] == "success"
        again = await client.call_tool("convert_repo", {"source": "pypi:beta"})
        assert again.data["status"] == "success"
    assert caplog.text.count("MCP tasks could not start") == 1


async def test_without_tasks_conversions_still_outlive_an_impatient_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What README.md promises a `pip install` (no fastmcp-tasks): a client that gives up
    leaves the conversion running, a second call joins it, conversion_status follows it."""
    settings = fast_settings(tmp_path / "home")
    pipeline = FakePipeline(settings)
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    monkeypatch.setitem(sys.modules, "fastmcp_tasks", None)  # as after a plain pip install
    server = build_server(settings)
    assert "conversion_status" in caplog.text and "MCP tasks are not served" in caplog.text
    async with Client(server) as client:
        with pytest.raises(Exception):  # noqa: B017 - the client's own timeout error
            await client.call_tool("convert_repo", {"source": "pypi:beta"}, timeout=1)
        status = await client.call_tool("conversion_status", {"job_or_source": "pypi:beta"})
        assert status.data["state"] == "running" and pipeline.cancelled == 0
        joined = asyncio.create_task(client.call_tool("convert_repo", {"source": "pypi:beta"}))
        await asyncio.sleep(0.2)
        pipeline.release.set()
        result = await joined
        assert result.data["status"] == "success"
        assert result.data["job"] == status.data["job"]  # joined, not started again
    assert [r.name for r in Registry(settings.registry_path).summaries()] == ["beta"]


async def test_tasks_are_served_over_http_behind_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast_settings(tmp_path / "home")
    settings = Settings.model_validate({**settings.model_dump(), "auth": {"token": "t0ken"}})
    pipeline = FakePipeline(settings)
    monkeypatch.setattr("metaserver.pipeline.convert", pipeline)
    async with serving_http(settings) as url, Client(url, auth="t0ken") as client:
        assert client.protocol_version == "2026-07-28"
        task = await call_tool_task(client, "convert_repo", {"source": "pypi:beta"})
        await asyncio.wait_for(pipeline.started.wait(), 10)
        assert (await task.status()).status == "working"
        pipeline.release.set()
        assert (await task.wait(timeout=10)).status == "completed"
        assert (await task.result()).data["server"] == "beta"
        assert (await client.call_tool("beta_add", {"a": 1, "b": 1})).data == 2


_IMPORTS_SEEN = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path

    sys.path.insert(0, sys.argv[1])
    from fake_children import fast_settings, register_fake
    from metaserver.server.app import build_server

    ENGINE = ("fastmcp_tasks", "docket", "redis")
    seen = {}
    settings = fast_settings(Path(sys.argv[2]))
    register_fake(settings, "alpha")
    server = build_server(settings)
    seen["built"] = [m for m in (*ENGINE, "fastmcp.client.client") if m in sys.modules]

    from fastmcp import Client

    async def main():
        async with Client(server) as client:
            await client.list_tools()
            assert (await client.call_tool("alpha_add", {"a": 2, "b": 3})).data == 5
            await client.call_tool("list_servers", {})
            seen["served"] = [m for m in ENGINE if m in sys.modules]
            missing = str(Path(sys.argv[2]) / "no-such-repository")
            await client.call_tool("convert_repo", {"source": missing}, raise_on_error=False)
            seen["converted"] = [m for m in ENGINE if m in sys.modules]

    asyncio.run(main())
    print(json.dumps(seen))
    """
)


def test_the_task_engine_is_imported_when_a_task_capable_tool_is_first_called(
    tmp_path: Path,
) -> None:
    """Issue 31: neither the task engine (docket, redis) nor FastMCP's client is imported by
    a meta-server that lists and calls tools; convert_repo brings the engine up."""
    tests = Path(__file__).resolve().parent.parent
    run = subprocess.run(
        [sys.executable, "-c", _IMPORTS_SEEN, str(tests), str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["built"] == [] and seen["served"] == []
    assert seen["converted"] == ["fastmcp_tasks", "docket", "redis"]
