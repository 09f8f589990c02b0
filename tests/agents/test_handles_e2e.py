"""A class-based API through the real pipeline: a handle made by one tool, used by the next.

Real uv environment, real generated server, real MCP client over stdio.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""An accumulator and date helpers: a metaserver test fixture."""

import datetime
import os
from decimal import Decimal


class Accumulator:
    """Adds numbers up."""

    def __init__(self, start: float = 0.0) -> None:
        self.total = start

    def add(self, value: float) -> "Accumulator":
        """Add ``value`` to the total and return the accumulator."""
        self.total += value
        return self

    def result(self) -> float:
        """The total so far."""
        return self.total


def days_after(when: datetime.date, days: int) -> datetime.date:
    """The date ``days`` after ``when``."""
    return when + datetime.timedelta(days=days)


def double(amount: Decimal) -> Decimal:
    """Twice an exact decimal amount."""
    return amount * 2


def wipe(name: str) -> None:
    """Delete a file (never a tool)."""
    os.remove(name)
'''

TESTS = """\
from accpack import days_after, double, Accumulator

def test_it():
    assert double("2.5") == "5.0"
    assert days_after("2024-02-28", 2) == "2024-03-01"
    Accumulator(3)
"""


@pytest.mark.integration
async def test_handles_and_codecs_through_a_real_server(tmp_path: Path, settings: Settings) -> None:
    repo = make_package_repo(
        tmp_path / "accpack",
        "accpack",
        "accpack",
        MODULE,
        {"tests/test_acc.py": textwrap.dedent(TESTS)},
    )
    report = await convert(str(repo), settings=settings, max_tools=8)
    assert report.status == "success", report.failure
    tools = {t.name: t for t in report.tools}
    assert "wipe" not in tools  # dangerous: never designed
    assert tools["double"].evidence is not None
    assert tools["double"].evidence.check == "expected-value"  # from the repository's test
    assert tools["days_after"].evidence is not None
    assert tools["days_after"].evidence.result == "2024-03-01"

    server_dir = Path(str(report.output_dir))
    snippet = json.loads((server_dir / "mcp.json").read_text())["mcpServers"]["accpack"]
    # As a client runs it: mcp.json's command, arguments and environment (a sandboxed run).
    transport = StdioTransport(
        snippet["command"], snippet["args"], env=snippet.get("env"), cwd=str(server_dir / "work")
    )
    async with Client(transport) as client:
        listed = {t.name: t for t in await client.list_tools()}
        handle_schema = listed["accumulator_add"].input_schema["properties"]["handle"]
        assert any("handle" in option.get("properties", {}) for option in handle_schema["anyOf"])
        made = (await client.call_tool("accumulator_new", {"start": 1.5})).structured_content
        assert made is not None
        first = made["result"]
        assert first["type"] == "accpack.Accumulator"
        added = await client.call_tool("accumulator_add", {"handle": first, "value": 2})
        assert added.structured_content is not None
        second = added.structured_content["result"]
        total = await client.call_tool("accumulator_result", {"handle": second})
        assert total.structured_content == {"result": 3.5}
        # The bare id, as the README says a client may pass it, through the tool's schema.
        bare = await client.call_tool("accumulator_result", {"handle": second["handle"]})
        assert bare.structured_content == {"result": 3.5}
        # The JSON form builds the object directly; an unknown handle is a tool error.
        built = await client.call_tool("accumulator_result", {"handle": {"start": 4}})
        assert built.structured_content == {"result": 4.0}
        bad = await client.call_tool_mcp("accumulator_result", {"handle": {"handle": "h_nope"}})
        assert bad.is_error
