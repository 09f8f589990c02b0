"""find_tools through a real FastMCP client: the tools a task needs, ready to call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError

from metaserver.server.app import build_server

pytestmark = pytest.mark.integration


async def test_find_tools_returns_callable_tools_with_their_schemas(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    async with Client(build_server(settings)) as client:
        assert "find_tools" in {tool.name for tool in await client.list_tools()}
        found = (
            await client.call_tool(
                "find_tools", {"task": "split this sentence into its words", "limit": 2}
            )
        ).data
        assert 1 <= len(found) <= 2  # only tools that match at all
        best = found[0]
        assert (best["server"], best["tool"]) == ("alpha", "split_words")
        assert best["input_schema"]["properties"]["text"]["type"] == "string"
        assert best["direct_tool"] == "alpha_split_words"
        assert best["call_generated"] == {"server": "alpha", "tool": "split_words"}
        assert best["score"] == 1.0
        # What it returns is enough to make the call, both ways.
        direct = await client.call_tool(best["direct_tool"], {"text": "a b"})
        assert direct.data == ["a", "b"]
        generated = await client.call_tool(
            "call_generated", {**best["call_generated"], "arguments": {"text": "c d"}}
        )
        assert generated.data == ["c", "d"]


async def test_find_tools_without_direct_tools_names_call_generated(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home", expose_direct_tools=False)
    register_fake(settings, "alpha")
    async with Client(build_server(settings)) as client:
        found = (await client.call_tool("find_tools", {"task": "add two integers"})).data
        assert found[0]["tool"] == "add" and found[0]["direct_tool"] is None
        assert len(found) <= 5


async def test_find_tools_task_is_bounded(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    async with Client(build_server(settings)) as client:
        with pytest.raises(ToolError, match="at most 2000 characters"):
            await client.call_tool("find_tools", {"task": "split words " * 200})
        found = await client.call_tool("find_tools", {"task": "split words " * 150})
        assert found.data[0]["tool"] == "split_words"


async def test_find_tools_and_list_tools_rank_alike(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    register_fake(settings, "beta")
    async with Client(build_server(settings)) as client:
        for task in ("split this sentence into its words", "add two integers", "sleep a while"):
            found = (await client.call_tool("find_tools", {"task": task, "limit": 4})).data
            listed = (await client.call_tool("list_tools", {"query": task, "limit": 4})).data
            assert found, task
            assert [(f["server"], f["tool"], f["score"]) for f in found] == [
                (t["server"], t["tool"], t["score"]) for t in listed
            ]


_OFFLINE = """
import asyncio, json
from fake_children import register_fake
from fastmcp import Client
from metaserver.server.app import build_server
from metaserver.settings import Settings

async def main():
    settings = Settings()
    assert settings.index.offline
    register_fake(settings, "alpha")
    async with Client(build_server(settings)) as client:
        task = "split this sentence into its words"
        found = (await client.call_tool("find_tools", {"task": task, "limit": 3})).data
        listed = (await client.call_tool("list_tools", {"query": task, "limit": 3})).data
    print(json.dumps([[f["tool"] for f in found], [t["tool"] for t in listed]]))

asyncio.run(main())
"""


def _unshare() -> str | None:
    tool = shutil.which("unshare")
    if tool is None or os.geteuid() != 0:
        return None
    probe = subprocess.run([tool, "-n", "true"], capture_output=True, check=False)
    return tool if probe.returncode == 0 else None


@pytest.mark.skipif(_unshare() is None, reason="needs root and unshare for a network namespace")
def test_find_tools_and_list_tools_rank_with_no_network(tmp_path: Path) -> None:
    """Both meta-tools, model and all, in a network namespace with no interface up: any
    fetch at run time would fail the search or fall back to BM25 (then the embedding model
    line below would be missing)."""
    unshare = _unshare()
    assert unshare is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env |= {
        "METASERVER_HOME": str(tmp_path / "home"),
        "METASERVER_INDEX__OFFLINE": "true",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    result = subprocess.run(
        [unshare, "-n", sys.executable, "-c", _OFFLINE],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found, listed = json.loads(result.stdout.strip().splitlines()[-1])
    assert found == listed and found[0] == "split_words"
    assert "no embedding model" not in result.stderr
    assert "did not load" not in result.stderr
