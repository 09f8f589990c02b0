"""Handles and codecs on real libraries from the dev corpus, through the real pipeline.

Needs the package index (or a warm uv cache) and about a minute per library, so it runs only
with METASERVER_CORPUS_TESTS=1 (the bench, bench/convert_corpus.py, covers the rest).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from metaserver.pipeline import convert
from metaserver.settings import Settings

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.environ.get("METASERVER_CORPUS_TESTS") != "1",
        reason="set METASERVER_CORPUS_TESTS=1 (needs the index; about a minute per library)",
    ),
]


async def served(source: str, settings: Settings, max_tools: int = 12) -> Client[Any]:
    report = await convert(source, settings=settings, max_tools=max_tools)
    assert report.status == "success", report.failure
    server_dir = Path(str(report.output_dir))
    (snippet,) = json.loads((server_dir / "mcp.json").read_text())["mcpServers"].values()
    # As a client runs it: mcp.json's command, arguments and environment (a sandboxed run).
    transport = StdioTransport(
        snippet["command"], snippet["args"], env=snippet.get("env"), cwd=str(server_dir / "work")
    )
    return Client(transport)


async def result(client: Client[Any], tool: str, arguments: dict[str, Any]) -> Any:
    answer = await client.call_tool(tool, arguments)
    assert answer.structured_content is not None
    return answer.structured_content["result"]


async def test_pint_quantity_made_by_one_tool_is_converted_by_another(settings: Settings) -> None:
    async with await served("pypi:pint==0.26.2", settings) as client:
        names = {t.name for t in await client.list_tools()}
        assert "quantity_new" in names
        quantity = await result(client, "quantity_new", {"value": "1500 meter"})
        assert quantity["type"].startswith("pint.")
        method = next(n for n in ("quantity_to", "quantity_to_compact") if n in names)
        arguments = {"handle": quantity}
        if method == "quantity_to":
            arguments["other"] = "kilometer"
        converted = await result(client, method, arguments)
        assert "1.5" in converted["repr"] and "kilometer" in converted["repr"]


async def test_shapely_geometry_handle_passes_through_two_calls(settings: Settings) -> None:
    async with await served("pypi:shapely==2.2.0", settings, max_tools=60) as client:
        line = await result(client, "from_wkt", {"geometry": "LINESTRING (0 0, 1 1, 2 2)"})
        assert line["type"] == "shapely.geometry.linestring.LineString"
        # The same server-side geometry, by handle, through two more tools.
        assert await result(client, "get_num_points", {"geometry": line}) == 3
        assert await result(client, "equals", {"a": line, "b": line}) is True


async def test_dateutil_parse_returns_an_iso_datetime(settings: Settings) -> None:
    async with await served("pypi:python-dateutil==4.0.0", settings) as client:
        parsed = await result(client, "parse", {"timestr": "Sep 25 2003 10:49:41"})
        assert parsed == "2003-09-25T10:49:41"
