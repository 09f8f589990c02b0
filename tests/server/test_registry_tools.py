"""The registry meta-tools through a real FastMCP client, in process: a search text is
bounded (issue 28: a 20 MB list_tools query took 26 s and was echoed back whole)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError

from metaserver.server.app import build_server

pytestmark = pytest.mark.integration


async def test_list_tools_query_is_bounded_and_never_echoed_whole(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    async with Client(build_server(settings)) as client:
        with pytest.raises(ToolError, match="at most 2000 characters") as refused:
            await client.call_tool("list_tools", {"query": "zq" * 1001})
        assert "zqzqzqzqzq" * 20 not in str(refused.value)
        empty = await client.call_tool("list_tools", {"query": "xyzzy " * 300})
        assert empty.structured_content == {"result": []}
        sentence = empty.content[0].text  # type: ignore[union-attr]
        assert sentence.startswith("no tools match") and len(sentence) < 200
