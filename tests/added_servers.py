"""A tiny third-party MCP server for ``metaserver add``: unit conversions, written as a
FastMCP script into a test's directory and run with the project's own interpreter, over stdio
(sandboxed by metaserver) or as a streamable HTTP server on 127.0.0.1 (a plain subprocess, as
a remote server would be)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRIPT = '''\
import os
import sys

from fastmcp import FastMCP

mcp = FastMCP("units")


@mcp.tool
def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


@mcp.tool
def kilometres_to_miles(kilometres: float) -> float:
    """Convert a distance in kilometres to miles."""
    return round(kilometres / 1.609344, 6)


@mcp.tool
def kilograms_to_pounds(kilograms: float) -> float:
    """Convert a weight or mass in kilograms to pounds."""
    return round(kilograms * 2.20462262, 6)


@mcp.tool
def can_connect(host: str, port: int) -> bool:
    """Whether this server can open a TCP connection to host and port."""
    import socket

    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        from starlette.middleware import Middleware
        from starlette.responses import PlainTextResponse

        key = os.environ.get("UNITS_API_KEY", "")

        class RequireKey:
            def __init__(self, app):
                self.app = app

            async def __call__(self, scope, receive, send):
                if scope["type"] == "http" and key:
                    given = dict(scope["headers"]).get(b"x-api-key", b"").decode()
                    if given != key:
                        await PlainTextResponse("bad key", status_code=401)(scope, receive, send)
                        return
                await self.app(scope, receive, send)

        mcp.run(
            transport="http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp",
            show_banner=False, middleware=[Middleware(RequireKey)],
        )
    else:
        mcp.run(show_banner=False)
'''

# A server whose listing breaks the MCP specification: a tool's input schema is no schema.
BAD_SCHEMA_SCRIPT = """\
from fastmcp import FastMCP
from fastmcp.tools import Tool
from fastmcp.tools import ToolResult


class Broken(Tool):
    async def run(self, arguments):
        return ToolResult(content=[])


mcp = FastMCP("broken")
mcp.add_tool(Broken(name="broken", description="A tool.",
                    parameters={"type": "object", "properties": {"x": {"type": 12}}}))

if __name__ == "__main__":
    mcp.run(show_banner=False)
"""

UNITS_TOOLS = {"celsius_to_fahrenheit", "kilometres_to_miles", "kilograms_to_pounds"}


def write_script(directory: Path, text: str = SCRIPT, name: str = "units_server.py") -> Path:
    """The script in ``directory`` (readable by the sandbox uid, as any shipped file is)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def http_server(script: Path, api_key: str = "") -> Iterator[str]:
    """Serve ``script`` over streamable HTTP on a free loopback port; yield its MCP URL."""
    port = free_port()
    env = {**os.environ, "UNITS_API_KEY": api_key, "FASTMCP_LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [sys.executable, str(script), "http", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "the HTTP fixture server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP fixture server did not start"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
