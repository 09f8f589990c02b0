"""The ``add_server`` meta-tool through a real ``metaserver serve`` over stdio: an existing
MCP server (the units fixture, over stdio in the sandbox or over streamable HTTP) is added,
found by a plain-language query, called directly and through ``call_generated``, still there
after the meta-server restarts, and removed; refusals are tool errors that register nothing."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from added_servers import UNITS_TOOLS, http_server, write_script
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))
API_KEY = "meta-key-51c0aa"


def serve_transport(home: Path, **settings: str) -> StdioTransport:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    env.update(settings)
    return StdioTransport(METASERVER, ["serve"], env=env, keep_alive=False)


@contextmanager
def endpoint_for(kind: str, script: Path) -> Iterator[dict[str, Any]]:
    """The add_server arguments for the fixture served as ``kind``."""
    if kind == "stdio":
        yield {"command": sys.executable, "args": [str(script)]}
        return
    with http_server(script, api_key=API_KEY) as url:
        yield {"url": url, "headers": {"X-Api-Key": API_KEY}}


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_an_added_server_is_found_called_survives_a_restart_and_is_removed(
    tmp_path: Path, kind: str
) -> None:
    home = tmp_path / "home"
    script = write_script(tmp_path / "third-party")
    with endpoint_for(kind, script) as endpoint:
        async with Client(serve_transport(home), mode="legacy", timeout=180) as client:
            added = (await client.call_tool("add_server", {"name": "units", **endpoint})).data
            assert added["kind"] == "added" and set(added["tools"]) >= UNITS_TOOLS
            names = {tool.name for tool in await client.list_tools()}
            assert {f"units_{tool}" for tool in UNITS_TOOLS} <= names

            found = (
                await client.call_tool("find_tools", {"task": "turn kilograms into pounds"})
            ).data
            assert (found[0]["server"], found[0]["tool"]) == ("units", "kilograms_to_pounds")
            assert found[0]["direct_tool"] == "units_kilograms_to_pounds"
            hits = (
                await client.call_tool("list_tools", {"query": "temperature in fahrenheit"})
            ).data
            assert hits[0]["tool"] == "celsius_to_fahrenheit"

            direct = await client.call_tool("units_kilograms_to_pounds", {"kilograms": 2})
            assert direct.data == 4.409245
            servers = (await client.call_tool("list_servers", {})).data
            assert [(s["name"], s["kind"]) for s in servers] == [("units", "added")]
            assert API_KEY not in str(servers)

            # The same name again is refused, as the command line refuses it.
            with pytest.raises(ToolError, match="registered already"):
                await client.call_tool("add_server", {"name": "units", **endpoint})

        # A new meta-server process: the registry is the truth.
        async with Client(serve_transport(home), mode="legacy", timeout=180) as client:
            assert "units_celsius_to_fahrenheit" in {t.name for t in await client.list_tools()}
            called = await client.call_tool(
                "call_generated",
                {"server": "units", "tool": "celsius_to_fahrenheit", "arguments": {"celsius": 37}},
            )
            assert called.data == pytest.approx(98.6)
            removed = (await client.call_tool("remove_server", {"server": "units"})).data
            assert removed["removed"] == "units"
            assert "units_celsius_to_fahrenheit" not in {t.name for t in await client.list_tools()}
    assert not any((home / "servers").iterdir())


async def test_add_server_refusals_are_tool_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with Client(serve_transport(home), mode="legacy", timeout=180) as client:
        refusals = [
            ({"name": "Bad Name", "url": "http://127.0.0.1:9/mcp"}, "invalid server name"),
            ({"name": "x"}, "either command"),
            ({"name": "x", "command": "true", "url": "http://127.0.0.1:9/mcp"}, "either command"),
            ({"name": "x", "command": "no-such-command-4f2a"}, "not found on PATH"),
            ({"name": "x", "url": "file:///etc/passwd"}, "http:// or https://"),
            ({"name": "x", "url": "http://127.0.0.1:9/mcp"}, "did not answer initialize"),
            ({"name": "x", "command": "true"}, "did not answer initialize"),
            (
                {"name": "x", "url": "http://127.0.0.1:9/mcp", "headers": {"Bad Name": "v"}},
                "invalid header name",
            ),
            # Network is the operator's to grant, not a client's to ask for.
            (
                {"name": "x", "command": sys.executable, "allow_network": True},
                "refused to MCP clients",
            ),
        ]
        for arguments, why in refusals:
            with pytest.raises(ToolError, match=why):
                await client.call_tool("add_server", arguments)
        assert (await client.call_tool("list_servers", {})).data == []

    # An operator who allows it: the request goes on to the checks every add gets.
    allowed = serve_transport(home, METASERVER_SANDBOX__CLIENT_NETWORK="true")
    async with Client(allowed, mode="legacy", timeout=180) as client:
        with pytest.raises(ToolError, match="did not answer initialize"):
            arguments = {"name": "x", "command": "true", "allow_network": True}
            await client.call_tool("add_server", arguments)
