"""`metaserver serve` end to end: a client asks for a conversion and uses the new tools.

Real everything: the `metaserver` console script over stdio, the real pipeline (git clone,
uv environment, probe, generated server, validation), and a FastMCP client in both eras,
with and without MCP tasks.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp_tasks import call_tool_task
from fixture_repos import make_calc_repo

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))


class ListChanged:
    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.count += 1


def serve_transport(home: Path) -> StdioTransport:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    return StdioTransport(METASERVER, ["serve"], env=env, keep_alive=False)


async def test_convert_repo_then_call_generated_and_direct(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    heard = ListChanged()
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or str(value))

    async with Client(
        serve_transport(home), mode="legacy", message_handler=heard, timeout=600
    ) as client:
        before = {tool.name for tool in await client.list_tools()}
        assert "convert_repo" in before and not any(n.startswith("calcpack_") for n in before)

        result = await client.call_tool(
            "convert_repo", {"source": f"file://{repo}"}, progress_handler=on_progress
        )
        report = result.structured_content or {}
        assert report["status"] == "success", report.get("failure")
        assert report["tools_passed"] >= 3
        assert progress, "convert_repo sent no progress notifications"

        deadline = time.monotonic() + 5
        while heard.count == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert heard.count >= 1, "no notifications/tools/list_changed after the conversion"

        after = {tool.name for tool in await client.list_tools()}
        assert {"calcpack_add", "calcpack_fibonacci"} <= after

        via_meta = await client.call_tool(
            "call_generated", {"server": "calcpack", "tool": "add", "arguments": {"a": 2, "b": 40}}
        )
        assert via_meta.data == 42
        direct = await client.call_tool("calcpack_fibonacci", {"n": 6})
        assert direct.data == [0, 1, 1, 2, 3, 5]

        hits = (await client.call_tool("list_tools", {"query": "fibonacci numbers"})).data
        assert (hits[0]["server"], hits[0]["tool"]) == ("calcpack", "fibonacci")

    # A restarted meta-server, in the modern era this time, still serves the tools.
    async with Client(serve_transport(home), timeout=120) as client:
        again = await client.call_tool("calcpack_slugify", {"text": "Meta Server"})
        assert again.data == "meta-server"


async def test_convert_repo_converts_the_repository_a_papers_repo_url_names(
    tmp_path: Path,
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    paper = tmp_path / "paper.md"
    # The paper links a public project (no network here); repo_url names the local fixture.
    paper.write_text("# Calcpack\n\nCode: https://github.com/example/calcpack\n")
    async with Client(serve_transport(tmp_path / "home"), mode="legacy", timeout=600) as client:
        result = await client.call_tool(
            "convert_repo", {"source": str(paper), "repo_url": f"file://{repo}"}
        )
        report = result.structured_content or {}
        assert report["status"] == "success", report.get("failure")
        assert report["source"] == str(paper) and report["repository"] == f"file://{repo}"
        listed = {str(r.uri) for r in await client.list_resources()}
        assert {"doc://calcpack/readme", "doc://calcpack/paper"} <= listed
        read = await client.read_resource("doc://calcpack/paper")
        assert read[0].text.startswith("# Calcpack")  # type: ignore[union-attr]


def _processes_under(path: Path) -> list[str]:
    """Command lines of live processes that name ``path`` (a sandboxed tool names its dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(path) in argv:
            found.append(argv)
    return found


async def test_convert_repo_as_a_task_can_be_cancelled_and_leaves_nothing(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    async with Client(serve_transport(home), timeout=600) as client:
        assert client.protocol_version == "2026-07-28"
        # Stopped while the generated server is being proven in the sandbox.
        task = await call_tool_task(client, "convert_repo", {"source": f"file://{repo}"})
        stages: list[str] = []
        deadline = time.monotonic() + 300
        while not stages or stages[-1] != "validate":
            status = await task.status()
            assert status.status == "working", (status.status, stages)
            if status.status_message and status.status_message not in stages:
                stages.append(status.status_message)
            assert time.monotonic() < deadline, stages
            await asyncio.sleep(0.05)
        await task.cancel()
        assert (await task.wait(timeout=60)).status == "cancelled"
        assert stages[0] == "fetch" and "environment" in stages

        assert (await client.call_tool("list_servers", {})).data == []

        def leftovers() -> list[str]:
            found = _processes_under(home / "servers") + _processes_under(home / "staging")
            for kind in ("workspaces", "environments", "servers"):
                found.extend(str(p) for p in (home / kind).glob("calcpack-*"))
            return found + [str(p) for p in (home / "staging").glob("*")]

        # The worker stops the conversion moments after the task is marked cancelled.
        deadline = time.monotonic() + 30
        while leftovers() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert not leftovers()

        # The same conversion, left to finish, completes as a task and mounts its tools.
        task = await call_tool_task(client, "convert_repo", {"source": f"file://{repo}"})
        assert (await task.wait(timeout=600)).status == "completed"
        report = (await task.result()).data
        assert report["status"] == "success", report.get("failure")
        assert (await client.call_tool("calcpack_add", {"a": 40, "b": 2})).data == 42
