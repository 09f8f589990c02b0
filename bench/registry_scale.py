"""The registry at scale: 1,000 servers and 20,000 tools.

Prints list_tools(query) p50/p95 (the hybrid search function: BM25 + embeddings, each text
searched for the first time and again, when its embedding is remembered; and through the
meta-server over stdio), the first search after a registration (the vectors reread), the
embedding cost of registering a 12-tool server, meta-server start time (spawn to a tools/list
answer, with and without the direct `<server>_<tool>` tools), and memory with 8 live children.
Targets: search p95 under 50 ms; embeddings of a 12-tool server under 1 s; start under 2 s.
Start times assume compiled bytecode (`make setup`); with PYTHONDONTWRITEBYTECODE=1 and no
.pyc files every start compiles its imports (about +0.6 s here).

    make setup && uv run python bench/registry_scale.py [--servers 1000] [--tools 20]
        [--search-only] [--home DIR] [--distinct N]

With --distinct N only N servers are registered through Registry.register (embeddings
included); the others are copies of their rows under new server names, written in SQL (the
triggers index them as any registration does). Search then costs what it costs over that
many tools and vectors, and the fill takes seconds instead of the embedding of every tool's
texts (an hour on a loaded 2-core machine).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fake_children import SERVER_SCRIPT, TOOLS

from metaserver.registry import Registry, ServerRecord, ToolRecord, lexical
from metaserver.registry.embeddings import embedder, forget_embedder, tool_vectors
from metaserver.registry.requests import template_requests
from metaserver.registry.search import BM25_WEIGHTS, search_tools
from metaserver.settings import Settings

METASERVER = str(Path(sys.executable).with_name("metaserver"))
WORDS = (
    "matrix vector integrate differentiate parse format date time zone solar angle "
    "geometry polygon distance unit convert quantity spectrum colour signal filter "
    "transfer function element mass isotope game equilibrium payoff string similarity "
    "edit distance chunk window iterate sort merge uncertainty error propagate"
).split()
QUERIES = [
    "convert units of a quantity",
    "solar angle at a date",
    "edit distance of strings",
    "polygon area",
    "add two integers",
    "filter a signal",
    "isotope mass",
    "sort and merge",
]


def populate(
    settings: Settings, servers: int, tools: int, rng: random.Random, distinct: int | None = None
) -> None:
    registry = Registry(settings.registry_path)
    for index in range(min(servers, distinct or servers)):
        name = f"srv{index:04d}"
        output_dir = settings.servers_dir / name
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / "server.py").write_text(SERVER_SCRIPT)
        records = [
            ToolRecord(name=t, description=d, target=f"fake:{t}", input_schema=s, definition_hash=t)
            for t, (d, s) in TOOLS.items()
        ]
        for extra in range(tools - len(records)):
            words = rng.sample(WORDS, 6)
            records.append(
                ToolRecord(
                    name=f"{words[0]}_{words[1]}_{extra}",
                    description=" ".join(words).capitalize() + ".",
                    target=f"pkg.mod:{words[0]}_{words[1]}",
                    input_schema={
                        "type": "object",
                        "properties": {
                            w: {"type": "string", "description": f"the {w}"} for w in words[2:4]
                        },
                    },
                    definition_hash=str(extra),
                )
            )
        registry.register(
            ServerRecord(
                name=name,
                source=f"bench:{name}",
                output_dir=output_dir,
                python_path=Path(sys.executable),
                venv=Path(sys.prefix),
                generator_version="bench",
                tools=records,
            )
        )

    if distinct and distinct < servers:
        copy_servers(registry.path, distinct, servers)


def copy_servers(path: Path, distinct: int, servers: int) -> None:
    """Servers ``distinct`` to ``servers - 1``: copies of the rows of server ``i % distinct``."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    for index in range(distinct, servers):
        name, model = f"srv{index:04d}", f"srv{index % distinct:04d}"
        db.execute(
            "INSERT INTO versions SELECT ?, version, source || ?, commit_sha, source_version,"
            " identity || ?, output_dir, python_path, venv, workspace, environment_lock,"
            " generator_version, report, created_at, kind, endpoint FROM versions WHERE server = ?",
            (name, name, name, model),
        )
        db.execute(
            "INSERT INTO servers SELECT ?, latest, created_at FROM servers WHERE name = ?",
            (name, model),
        )
        db.execute(
            "INSERT INTO tools (server, version, name, description, target, input_schema,"
            " definition_hash, evidence, requests, embedding, embedding_model)"
            " SELECT ?, version, name, description, target, input_schema, definition_hash,"
            " evidence, requests, embedding, embedding_model FROM tools WHERE server = ?",
            (name, model),
        )
    db.execute("COMMIT")
    db.close()


def percentiles(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=20)
    return f"p50 {statistics.median(samples):7.2f} ms  p95 {cuts[18]:7.2f} ms"


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def transport(home: Path, direct: bool) -> StdioTransport:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    env["METASERVER_EXPOSE_DIRECT_TOOLS"] = "true" if direct else "false"
    env["METASERVER_MAX_LISTED_TOOLS"] = "100000"  # list them all: the cost is the point
    return StdioTransport(METASERVER, ["serve"], env=env, keep_alive=False)


async def start_time(home: Path, direct: bool) -> tuple[float, int]:
    started = time.perf_counter()
    async with Client(transport(home, direct), timeout=120) as client:
        listed = await client.list_tools()
        return time.perf_counter() - started, len(listed)


async def main(servers: int, tools: int, options: argparse.Namespace) -> None:
    home = options.home or Path(tempfile.mkdtemp(prefix="metaserver-scale-"))
    settings = Settings(home=home)
    registry = Registry(settings.registry_path)
    if registry.path.exists():  # a home from an earlier run (--home): measure it as it is
        print(f"registry: {len(registry.summaries())} servers, reused from {home}")
    else:
        started = time.perf_counter()
        rng = random.Random(7)  # noqa: S311 - reproducible data
        populate(settings, servers, tools, rng, options.distinct)
        copied = f", {options.distinct} distinct" if options.distinct else ""
        print(
            f"registry: {servers} servers, {servers * tools} tools{copied}, "
            f"written in {time.perf_counter() - started:.1f} s (embeddings included)"
        )

    search_tools(registry, QUERIES[0], limit=20)  # the model and the vectors, loaded once
    search_tools(registry, QUERIES[0], limit=20)  # and the BM25 index, read in the background
    lexical.wait(registry.path, 60)
    model = embedder()
    first, again = [], []
    for _ in range(25):
        for query in QUERIES:
            # A text searched for the first time: its embedding is not remembered yet.
            if model is not None:
                model.forget_queries()
            began = time.perf_counter()
            search_tools(registry, query, limit=20)
            first.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            search_tools(registry, query, limit=20)
            again.append((time.perf_counter() - began) * 1000)
    print(f"search_tools(query), in process:   {percentiles(first)}")
    print(f"  the same text searched again:    {percentiles(again)}")
    embedding_costs(settings, registry)
    if options.search_only:
        return

    for direct in (False, True):
        seconds, listed = await start_time(home, direct)
        label = "with direct tools" if direct else "meta-tools only  "
        print(f"meta-server start, {label}:    {seconds:6.2f} s ({listed} tools listed)")

    async with Client(transport(home, False), timeout=120) as client:
        samples = []
        for _ in range(10):
            for query in QUERIES:
                began = time.perf_counter()
                await client.call_tool("list_tools", {"query": query})
                samples.append((time.perf_counter() - began) * 1000)
        print(f"list_tools(query) via meta-server: {percentiles(samples)}")
        for index in range(8):
            await client.call_tool(
                "call_generated",
                {"server": f"srv{index:04d}", "tool": "add", "arguments": {"a": 1, "b": 2}},
            )
        server_pid = transport_pid(home)
        tree = descendants(server_pid) if server_pid else []
        own = rss_mb([server_pid] if server_pid else [])
        print(
            f"memory with 8 live children:       {rss_mb(tree):7.0f} MB RSS over "
            f"{len(tree)} processes (meta-server alone {own:.0f} MB)"
        )


def embedding_costs(settings: Settings, registry: Registry) -> None:
    """The model's load, a 12-tool server's vectors, and the first search after a change."""
    forget_embedder()
    began = time.perf_counter()
    embedder()
    load = time.perf_counter() - began
    tools = [
        (
            name,
            description + " Returns the result as JSON; raises on invalid input.",
            template_requests("zz_extra", name, schema),  # what registration embeds too
        )
        for name, (description, schema) in list(TOOLS.items()) * 2
    ]
    samples = []
    for _ in range(5):
        began = time.perf_counter()
        tool_vectors(tools)
        samples.append(time.perf_counter() - began)
    print(
        f"embeddings of a {len(tools)}-tool server:     {statistics.median(samples):7.3f} s"
        f" (max {max(samples):.3f} s; model load once per process {load:.2f} s)"
    )
    extra = ServerRecord(
        name="zz_extra",
        source="bench:zz_extra",
        output_dir=settings.servers_dir / "zz_extra",
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="bench",
        tools=[
            ToolRecord(
                name=n, description=d, target=f"fake:{n}", input_schema={}, definition_hash=n
            )
            for n, d, _ in tools[: len(TOOLS)]
        ],
    )
    began = time.perf_counter()
    registry.register(extra)
    registered = time.perf_counter() - began
    began = time.perf_counter()
    search_tools(registry, QUERIES[0], limit=20)
    first = (time.perf_counter() - began) * 1000
    print(
        f"register a {len(TOOLS)}-tool server:             {registered:7.3f} s; first search "
        f"after it (vectors reread): {first:.0f} ms"
    )
    db = sqlite3.connect(registry.path, isolation_level=None)
    began = time.perf_counter()
    lexical.LexicalIndex.read(db, BM25_WEIGHTS, 0)
    print(
        f"BM25 index read (in the background, from the second search after a change): "
        f"{time.perf_counter() - began:.2f} s"
    )
    db.close()
    registry.remove("zz_extra")


def transport_pid(home: Path) -> int | None:
    """The meta-server's pid: the process whose environment names this bench's home."""
    marker = f"METASERVER_HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker in environ and b"serve" in argv:
            return int(entry.name)
    return None


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument(
        "--home", type=Path, help="a home to fill, or to reuse when it has a registry already"
    )
    parser.add_argument(
        "--distinct",
        type=int,
        help="register only this many servers for real; the rest are copies of their rows",
    )
    parser.add_argument(
        "--search-only", action="store_true", help="stop after the search and embedding figures"
    )
    options = parser.parse_args()
    asyncio.run(main(options.servers, options.tools, options))
