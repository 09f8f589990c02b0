"""Child start time and tool-call latency of a trivial MCP server, per sandbox backend.

Start time is spawn -> MCP ``initialize`` answered; latency is the median of many calls of
a trivial tool. ``none`` runs the server unconfined (no sandbox at all), for reference.
Run: ``uv run python bench/sandbox_overhead.py [--starts 5] [--calls 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from metaserver.children.launch import server_command, stdio_transport
from metaserver.sandbox import get_sandbox, unavailable_reason
from metaserver.settings import SandboxSettings

SERVER = """\
from fastmcp import FastMCP

mcp = FastMCP("bench")


@mcp.tool
def echo(x: int) -> int:
    return x


if __name__ == "__main__":
    mcp.run()
"""


def transport(backend: str, server_dir: Path) -> StdioTransport:
    python = Path(sys.executable)
    if backend == "none":
        return StdioTransport(command=str(python), args=["-I", str(server_dir / "server.py")])
    sandbox = get_sandbox(SandboxSettings(backend=backend))  # type: ignore[arg-type]
    return stdio_transport(server_command(sandbox, python, server_dir, 60))


async def measure(backend: str, server_dir: Path, starts: int, calls: int) -> dict[str, float]:
    start_times: list[float] = []
    latencies: list[float] = []
    for index in range(starts):
        client: Client[Any] = Client(transport(backend, server_dir), mode="legacy")
        began = time.perf_counter()
        async with client:
            start_times.append(time.perf_counter() - began)
            if index == 0:
                for i in range(calls):
                    t = time.perf_counter()
                    await client.call_tool_mcp("echo", {"x": i})
                    latencies.append(time.perf_counter() - t)
    return {
        "start_ms": 1000 * statistics.median(start_times),
        "call_ms": 1000 * statistics.median(latencies),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as tmp:
        server_dir = Path(tmp) / "server"
        server_dir.mkdir()
        Path(tmp).chmod(0o755)
        (server_dir / "server.py").write_text(SERVER)
        results: dict[str, dict[str, float]] = {}
        for backend in ("none", "process", "bwrap"):
            reason = unavailable_reason(backend, SandboxSettings()) if backend != "none" else None
            if reason is not None:
                print(f"{backend:8s} unavailable: {reason}")
                continue
            results[backend] = await measure(backend, server_dir, args.starts, args.calls)
            r = results[backend]
            print(f"{backend:8s} start {r['start_ms']:7.1f} ms   call {r['call_ms']:6.2f} ms")
        if "process" in results and "bwrap" in results:
            p, b = results["process"], results["bwrap"]
            print(
                f"bwrap/process: start x{b['start_ms'] / p['start_ms']:.2f}, "
                f"call x{b['call_ms'] / p['call_ms']:.2f}"
            )
        if "none" in results and "bwrap" in results:
            n, b = results["none"], results["bwrap"]
            print(
                f"bwrap/none:    start x{b['start_ms'] / n['start_ms']:.2f}, "
                f"call x{b['call_ms'] / n['call_ms']:.2f}"
            )


if __name__ == "__main__":
    asyncio.run(main())
