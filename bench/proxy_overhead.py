"""What the meta-server adds to a call: direct vs through metaserver, in one run.

Prints the median (and p95) latency of a trivial generated tool called directly over stdio
and through `metaserver serve` (stdio, `call_generated` and the direct `<server>_<tool>`),
their ratio, and throughput at concurrency 10. Target: under 5 ms added at the median.

    uv run python bench/proxy_overhead.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fake_children import register_fake

from metaserver.children.launch import server_command, stdio_transport
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

METASERVER = str(Path(sys.executable).with_name("metaserver"))


async def timed(call: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    for _ in range(10):  # warm up: start the child, fill caches
        await call()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def throughput(call: Callable[[], Awaitable[Any]], n: int, concurrency: int) -> float:
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with semaphore:
            await call()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return n / (time.perf_counter() - started)


def row(label: str, samples: list[float], rate: float) -> str:
    median = statistics.median(samples)
    p95 = statistics.quantiles(samples, n=20)[18]
    return f"{label:34} {median:8.2f} {p95:8.2f} {rate:10.0f}"


async def main(calls: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="metaserver-bench-"))
    settings = Settings(home=home)
    record = register_fake(settings, "bench")
    command = server_command(
        get_sandbox(settings.sandbox), record.python_path, record.output_dir, 60
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    arguments = {"a": 1, "b": 2}
    print(f"{'path':34} {'p50 ms':>8} {'p95 ms':>8} {'calls/s@10':>10}")
    async with (
        Client(stdio_transport(command)) as direct,
        Client(StdioTransport(METASERVER, ["serve"], env=env)) as meta,
    ):
        paths: dict[str, Callable[[], Awaitable[Any]]] = {
            "direct (generated server, stdio)": lambda: direct.call_tool("add", arguments),
            "metaserver bench_add (direct tool)": lambda: meta.call_tool("bench_add", arguments),
            "metaserver call_generated": lambda: meta.call_tool(
                "call_generated", {"server": "bench", "tool": "add", "arguments": arguments}
            ),
        }
        medians = {}
        for label, call in paths.items():
            samples = await timed(call, calls)
            rate = await throughput(call, calls, 10)
            medians[label] = statistics.median(samples)
            print(row(label, samples, rate))
    base = medians["direct (generated server, stdio)"]
    for label, median in list(medians.items())[1:]:
        print(f"{label}: +{median - base:.2f} ms at the median, ratio {median / base:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))
