"""Where the meta-server's time goes in a proxied call: a cProfile of ``metaserver serve``.

Runs the meta-server (stdio) under cProfile, makes ``--calls`` calls through one meta-tool
path (``direct``: ``bench_add``; ``generated``: ``call_generated``), ``--concurrency`` of them
in flight at once, and prints the top of the profile of the server process, by cumulative and
by own time, and how much of the run the server's CPU was busy (its process time over the
wall time: a server that waits on worker threads is idle while calls queue).

    uv run python bench/proxy_profile.py [--path direct|generated] [--calls 300]
        [--concurrency 10] [--no-profile]

With ``--no-profile`` only the server's CPU a call is printed, measured without cProfile's
cost (what a change to the fast path saves).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pstats
import signal
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fake_children import register_fake

from metaserver.settings import Settings

# The server under cProfile, after its start and warm-up: SIGUSR2 starts the profile and
# SIGUSR1 writes it (the client's own stop is a SIGTERM, which the server's scratch-directory
# cleanup handles by dying as SIGTERM would).
PROFILED = """
import cProfile, os, signal, sys
from pathlib import Path
from metaserver.cli import main
out = sys.argv[1]
sys.argv = ["metaserver", "serve"]
profile = cProfile.Profile()
def dump(*_):
    profile.disable()
    profile.dump_stats(out)
signal.signal(signal.SIGUSR1, dump)
signal.signal(signal.SIGUSR2, lambda *_: profile.enable())
Path(out + ".pid").write_text(str(os.getpid()))
main()
"""


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (all its threads)."""
    user, system = cpu_split(pid)
    return user + system


def cpu_split(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


async def main(path: str, calls: int, top: int, concurrency: int, profile: bool) -> None:
    home = Path(tempfile.mkdtemp(prefix="metaserver-profile-"))
    register_fake(Settings(home=home), "bench")
    out = home / "serve.prof"
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    argv = ["-c", PROFILED, str(out)]
    arguments = {"a": 1, "b": 2}
    async with Client(StdioTransport(sys.executable, argv, env=env)) as meta:
        pid = int(Path(f"{out}.pid").read_text())

        async def call() -> None:
            if path == "direct":
                await meta.call_tool("bench_add", arguments)
            else:
                await meta.call_tool(
                    "call_generated", {"server": "bench", "tool": "add", "arguments": arguments}
                )

        for _ in range(10):  # the child starts, caches fill
            await call()
        semaphore = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with semaphore:
                await call()

        if profile:
            os.kill(pid, signal.SIGUSR2)
        await asyncio.sleep(0.2)
        split, started = cpu_split(pid), time.perf_counter()
        cpu = sum(split)
        await asyncio.gather(*(one() for _ in range(calls)))
        wall, cpu = time.perf_counter() - started, cpu_seconds(pid) - cpu
        if not profile:
            user, system = (b - a for a, b in zip(split, cpu_split(pid), strict=True))
            print(
                f"{calls} calls at concurrency {concurrency}: {calls / wall:.0f} calls/s;"
                f" server CPU {cpu / calls * 1000:.3f} ms a call (user"
                f" {user / calls * 1000:.3f}, system {system / calls * 1000:.3f}; not profiled)"
            )
            return
        os.kill(pid, signal.SIGUSR1)
        for _ in range(100):
            if out.exists() and out.stat().st_size:
                break
            await asyncio.sleep(0.1)
    print(
        f"{calls} calls at concurrency {concurrency}: {calls / wall:.0f} calls/s;"
        f" server CPU {cpu / wall:.0%} of the wall time ({cpu / calls * 1000:.2f} ms a call,"
        " profiled, so slower than unprofiled)"
    )
    stats = pstats.Stats(str(out))
    stats.strip_dirs().sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", choices=["direct", "generated"], default="direct")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--no-profile", action="store_true", help="only the server's CPU a call, unprofiled"
    )
    args = parser.parse_args()
    asyncio.run(main(args.path, args.calls, args.top, args.concurrency, not args.no_profile))
