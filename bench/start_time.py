"""A meta-server's start: spawn to its first ``tools/list`` answer, 12 tools and 20,000.

Issue 31's targets: <= 1.5 s with 12 tools registered, <= 3 s with 20,000 (1,000 servers of
20, past ``max_listed_tools``: the meta-tools are listed, the direct tools mounted). With
``--against OTHER`` (another checkout's ``metaserver`` executable) both are started in turn,
round after round, and the ratio of their medians is printed: the figure to trust on a loaded
machine. Each executable gets a bytecode cache of its own under a temporary directory
(``PYTHONPYCACHEPREFIX``), filled by an uncounted first start, so neither pays for compiling
its imports and no checkout's tree is written.

    uv run python bench/start_time.py [--rounds 5] [--against /path/to/.venv/bin/metaserver]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fake_children import register_fake
from registry_scale import populate

from metaserver.settings import Settings

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def small_home(root: Path) -> Path:
    """Two servers of six tools."""
    settings = Settings(home=root / "small")
    register_fake(settings, "alpha")
    register_fake(settings, "beta")
    return settings.home


def large_home(root: Path) -> Path:
    """1,000 servers of 20 tools: one registered, the rest copies of its rows."""
    settings = Settings(home=root / "large")
    populate(settings, 1000, 20, random.Random(7), distinct=1)  # noqa: S311 (tool names)
    return settings.home


async def first_list(executable: str, home: Path, cache: Path) -> float:
    """Seconds from spawn to the first tools/list answer."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["METASERVER_HOME"] = str(home)
    started = time.perf_counter()
    transport = StdioTransport(executable, ["serve"], env=env, keep_alive=False)
    async with Client(transport, timeout=120) as client:
        await client.list_tools()
        return time.perf_counter() - started


async def main(rounds: int, against: str | None) -> None:
    root = Path(tempfile.mkdtemp(prefix="metaserver-start-"))
    homes = {"12 tools": small_home(root), "20,000 tools": large_home(root)}
    executables = {"this": METASERVER, **({"against": against} if against else {})}
    caches = {label: root / f"pycache-{label}" for label in executables}
    for label, executable in executables.items():  # uncounted: fills the bytecode cache
        await first_list(executable, homes["12 tools"], caches[label])
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for home_label, home in homes.items():
            for label, executable in executables.items():
                seconds = await first_list(executable, home, caches[label])
                times.setdefault((home_label, label), []).append(seconds)
    print(f"spawn to first tools/list answer, median of {rounds} interleaved rounds (s)")
    for home_label in homes:
        medians = {label: statistics.median(times[(home_label, label)]) for label in executables}
        line = "  ".join(f"{label} {value:6.2f}" for label, value in medians.items())
        if against:
            line += f"  ratio this/against {medians['this'] / medians['against']:.2f}"
        print(f"{home_label:13} {line}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", help="another metaserver executable, started in turn")
    options = parser.parse_args()
    asyncio.run(main(options.rounds, options.against))
