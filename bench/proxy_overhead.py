"""What the meta-server adds to a call: direct vs through metaserver, in one run.

Calls a trivial generated tool three ways, all over stdio: the generated server directly, the
meta-server's direct tool ``<server>_<tool>``, and ``call_generated``. Measured in interleaved
blocks (each block runs every path in turn), so that a load that comes and goes on the
machine falls on all paths alike; per path it prints the median and p95 latency at
concurrency 1, calls/s at concurrency 1 and 10, and then the ratios the targets of issue 31
are stated in: the direct tool within +1 ms of the median and at >= 80% of direct throughput
at concurrency 10, ``call_generated`` within 1.3x the direct tool. Ratios from one run; the
absolute figures depend on the machine's load. With ``--against OTHER`` (another checkout's
``metaserver`` executable, serving the same registry) its two meta-tool paths join the blocks
and their ratios to this checkout's are printed: a before/after measured in one run.

    uv run python bench/proxy_overhead.py [--calls 200] [--blocks 5] [--against EXECUTABLE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
DIRECT, TOOL, GENERATED = "generated server", "meta direct tool", "meta call_generated"
OTHER_TOOL, OTHER_GENERATED = "against direct tool", "against call_generated"


async def latencies(call: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    """``n`` sequential calls' latencies in ms."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def rate(call: Callable[[], Awaitable[Any]], n: int, concurrency: int) -> float:
    """Calls per second for ``n`` calls with ``concurrency`` in flight."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with semaphore:
            await call()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return n / (time.perf_counter() - started)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[18]


async def main(home: Path, calls: int, blocks: int, against: str | None) -> None:
    settings = Settings(home=home)
    record = register_fake(settings, "bench")
    command = server_command(
        get_sandbox(settings.sandbox), record.python_path, record.output_dir, 60
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    arguments = {"a": 1, "b": 2}
    samples: dict[str, list[float]] = {DIRECT: [], TOOL: [], GENERATED: []}
    if against:
        samples |= {OTHER_TOOL: [], OTHER_GENERATED: []}
    rates: dict[tuple[str, int], list[float]] = {}
    generated = {"server": "bench", "tool": "add", "arguments": arguments}
    async with (
        Client(stdio_transport(command)) as direct,
        Client(StdioTransport(METASERVER, ["serve"], env=env)) as meta,
        contextlib.AsyncExitStack() as stack,
    ):
        paths: dict[str, Callable[[], Awaitable[Any]]] = {
            DIRECT: lambda: direct.call_tool("add", arguments),
            TOOL: lambda: meta.call_tool("bench_add", arguments),
            GENERATED: lambda: meta.call_tool("call_generated", generated),
        }
        if against:
            other = await stack.enter_async_context(
                Client(StdioTransport(against, ["serve"], env=env))
            )
            paths[OTHER_TOOL] = lambda: other.call_tool("bench_add", arguments)
            paths[OTHER_GENERATED] = lambda: other.call_tool("call_generated", generated)
        for call in paths.values():  # warm up: the child starts, caches fill
            await latencies(call, 20)
        for _ in range(blocks):
            for label, call in paths.items():
                samples[label] += await latencies(call, calls)
                for concurrency in (1, 10):
                    rates.setdefault((label, concurrency), []).append(
                        await rate(call, calls, concurrency)
                    )
    print(f"{blocks} interleaved blocks of {calls} calls per path and measure")
    print(f"{'path':22} {'p50 ms':>8} {'p95 ms':>8} {'calls/s@1':>10} {'calls/s@10':>11}")
    medians = {label: statistics.median(values) for label, values in samples.items()}
    throughput = {key: statistics.median(values) for key, values in rates.items()}
    for label, values in samples.items():
        print(
            f"{label:22} {medians[label]:8.2f} {p95(values):8.2f}"
            f" {throughput[(label, 1)]:10.0f} {throughput[(label, 10)]:11.0f}"
        )
    base = medians[DIRECT]
    print(
        f"direct tool: +{medians[TOOL] - base:.2f} ms at the median (target <= +1),"
        f" latency ratio {medians[TOOL] / base:.2f}"
    )
    for concurrency in (1, 10):
        share = throughput[(TOOL, concurrency)] / throughput[(DIRECT, concurrency)]
        target = " (target >= 0.80)" if concurrency == 10 else ""
        print(f"direct tool throughput at concurrency {concurrency}: {share:.2f}x direct{target}")
    print(
        f"call_generated: {medians[GENERATED] / medians[TOOL]:.2f}x the direct tool"
        f" (target <= 1.3), {medians[GENERATED] / base:.2f}x direct,"
        f" throughput@10 {throughput[(GENERATED, 10)] / throughput[(DIRECT, 10)]:.2f}x direct"
    )
    if against:
        for this, that in ((TOOL, OTHER_TOOL), (GENERATED, OTHER_GENERATED)):
            print(
                f"{this} against {that}: latency {medians[this] / medians[that]:.2f}x,"
                f" throughput@1 {throughput[(this, 1)] / throughput[(that, 1)]:.2f}x,"
                f" @10 {throughput[(this, 10)] / throughput[(that, 10)]:.2f}x"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--against", help="another metaserver executable, measured in turn")
    arguments = parser.parse_args()
    # The home (a registry and a generated server) goes when the bench ends.
    scratch = tempfile.TemporaryDirectory(prefix="metaserver-bench-", ignore_cleanup_errors=True)
    with scratch as home:
        asyncio.run(main(Path(home), arguments.calls, arguments.blocks, arguments.against))
