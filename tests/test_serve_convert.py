"""`metaserver serve` end to end: a client asks for a conversion and uses the new tools.

Real everything: the `metaserver` console script over stdio, the real pipeline (git clone,
uv environment, probe, generated server, validation), and a FastMCP client in both eras.
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
