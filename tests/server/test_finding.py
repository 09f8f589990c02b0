"""find_tools through a real FastMCP client: the tools a task needs, ready to call."""

from __future__ import annotations

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
