"""A meta-server's start: spawn to its first ``tools/list`` answer, 12 tools and 20,000.

Issue 31's targets: <= 1.5 s with 12 tools registered, <= 3 s with 20,000 (1,000 servers of
20, past ``max_listed_tools``: the meta-tools are listed, the direct tools mounted). Then, in
the 20,000-tool home, the first ``list_tools(query)`` after a server is registered by another
process (target <= 100 ms; the serving process rereads the index on its own,
``server/warm_search.py``, given a second to do so, as a client takes to read the
notification; ``--settle 0`` asks at once, so the search itself brings the index up to date)
and the meta-server's RSS after its searches (target <= 300 MB; its anonymous
part too: the rest is mapped files, the vector file's and the model's weights among them,
pages of the system's cache) and a live child's after one call. With
``--against OTHER`` (another checkout's ``metaserver`` executable) both are started in turn,
round after round, and the ratio of their medians is printed: the figure to trust on a loaded
machine. Each executable gets a bytecode cache of its own under a temporary directory
(``PYTHONPYCACHEPREFIX``), filled by an uncounted first start, so neither pays for compiling
its imports and no checkout's tree is written.

    uv run python bench/start_time.py [--rounds 5] [--settle 1.0]
        [--against /path/to/.venv/bin/metaserver]
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

from metaserver.registry.store import Registry
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


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """The resident memory of process ``pid`` (0 when it is gone); ``field`` "RssAnon" for
    its anonymous part, what no other process shares and the kernel cannot drop."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def child_pids(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                found.append(int(entry.name))
    return found


def deepest_rss(pid: int) -> float:
    """The RSS of the last process down ``pid``'s line of children (a child server under its
    sandbox's wrappers), 0 when there is none."""
    below = child_pids(pid)
    while below:
        pid, below = below[-1], child_pids(below[-1])
    return rss_mb(pid)


def serving_pid(home: Path) -> int:
    """The pid of the meta-server serving ``home`` (its environment names the home)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
                serving = b"serve" in (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if serving and f"METASERVER_HOME={home}".encode() in environ.split(b"\0"):
                return int(entry.name)
    return 0


async def searched(
    executable: str, home: Path, cache: Path, round_: int, settle: float
) -> tuple[float, ...]:
    """Milliseconds of the first search after a registration by another process, then the
    meta-server's RSS (MB) after its searches, a child's after one call, and the
    meta-server's anonymous RSS."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["METASERVER_HOME"] = str(home)
    transport = StdioTransport(executable, ["serve"], env=env, keep_alive=False)
    settings = Settings(home=home)
    name = f"fresh{round_:03d}x{abs(hash(executable)) % 1000:03d}"
    async with Client(transport, timeout=120) as client:
        await client.call_tool("list_tools", {"query": "add two numbers"})
        await client.call_tool("list_tools", {"query": "split a sentence into words"})
        register_fake(settings, name)  # this process is "another process" to the server
        await asyncio.sleep(settle)
        began = time.perf_counter()
        hits = await client.call_tool("list_tools", {"query": f"{name}_split_words"})
        first = (time.perf_counter() - began) * 1000
        assert name in str(hits.content), "the new server's tool was not found"
        pid = serving_pid(home)
        server_rss = rss_mb(pid)
        server_anonymous = rss_mb(pid, "RssAnon")
        await client.call_tool(
            "call_generated", {"server": name, "tool": "add", "arguments": {"a": 1, "b": 2}}
        )
        child = deepest_rss(pid)
    Registry(settings.registry_path).remove(name)
    return first, server_rss, child, server_anonymous


async def main(root: Path, rounds: int, against: str | None, settle: float) -> None:
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
    figures: dict[str, list[tuple[float, ...]]] = {}
    for round_ in range(rounds):
        for label, executable in executables.items():
            found = await searched(executable, homes["20,000 tools"], caches[label], round_, settle)
            figures.setdefault(label, []).append(found)
    print(
        f"20,000 tools: first search {settle:g} s after another process registered a server,"
        " then RSS"
    )
    for label, rows in figures.items():
        columns = [statistics.median(column) for column in zip(*rows, strict=True)]
        first, server, child, anonymous = columns
        print(
            f"  {label:8} first search {first:7.1f} ms  meta-server {server:5.0f} MB"
            f" (anonymous {anonymous:5.0f})  child {child:4.0f} MB"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", help="another metaserver executable, started in turn")
    parser.add_argument(
        "--settle",
        type=float,
        default=1.0,
        help="seconds between the registration and the search (0: the search reads the change)",
    )
    options = parser.parse_args()
    # The homes (two registries, 20,000 tools: about 400 MB) go when the bench ends.
    scratch = tempfile.TemporaryDirectory(prefix="metaserver-start-", ignore_cleanup_errors=True)
    with scratch as root:
        asyncio.run(main(Path(root), options.rounds, options.against, options.settle))
