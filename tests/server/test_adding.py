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
        allowed = {"METASERVER_ADD__ALLOWED_URLS": endpoint["url"]} if kind == "http" else {}
        async with Client(serve_transport(home, **allowed), mode="legacy", timeout=180) as client:
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
            # No URL is allowed to clients unless the operator lists it.
            ({"name": "x", "url": "http://127.0.0.1:9/mcp"}, "not one the operator allows"),
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


async def test_add_server_reaches_only_listed_urls_and_says_one_thing(tmp_path: Path) -> None:
    """A listed URL whose port is closed and one whose port answers HTTP but not MCP get the
    same message; an unlisted one (even under a listed host) is refused unconnected."""
    home = tmp_path / "home"
    with not_mcp_server() as open_url:
        closed_url = "http://127.0.0.1:9/mcp"
        listed = f"{closed_url},{open_url}"
        transport = serve_transport(home, METASERVER_ADD__ALLOWED_URLS=listed)
        async with Client(transport, mode="legacy", timeout=180) as client:
            messages = []
            for name, url in (("closed", closed_url), ("open", open_url)):
                with pytest.raises(ToolError) as raised:
                    await client.call_tool("add_server", {"name": name, "url": url})
                messages.append(str(raised.value).replace(url, "URL").replace(name, "NAME"))
            assert messages[0] == messages[1], messages
            assert "did not answer initialize and tools/list as an MCP server" in messages[0]
            for url in (open_url + "/../admin", open_url.rsplit("/", 1)[0] + "/other"):
                with pytest.raises(ToolError, match="not one the operator allows"):
                    await client.call_tool("add_server", {"name": "x", "url": url})
            assert (await client.call_tool("list_servers", {})).data == []


@contextmanager
def not_mcp_server() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 that answers every request with a plain-text page."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._page()

        def do_POST(self) -> None:
            self._page()

        def _page(self) -> None:
            body = b"hello, not MCP\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
