"""The meta-server served over streamable HTTP in the test's own event loop."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from metaserver.server.app import run
from metaserver.settings import Settings


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def serving_http(settings: Settings, bind: str = "127.0.0.1") -> AsyncIterator[str]:
    """Serve ``settings``' meta-server on a free port of ``bind``; yield its MCP URL (always
    reached through loopback)."""
    port = free_port()
    task = asyncio.create_task(run(settings, "http", bind, port))
    deadline = time.monotonic() + 20
    while True:
        assert not task.done(), task.exception()
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the HTTP server did not start"
            await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


# A legacy-era initialize request as raw JSON-RPC, and the Accept header streamable HTTP wants:
# for tests that speak to a server below the client library.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}
