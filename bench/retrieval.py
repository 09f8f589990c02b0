"""Tool retrieval quality and latency, through the code path ``list_tools`` uses.

Builds a fresh registry in a temporary METASERVER_HOME from TOOLS.jsonl (one tool a line:
``{"server", "name", "description", "input_schema"}``), each ``server`` registered as one
server whose tools are taken as they are, then runs every request of QUERIES.jsonl (``{"id",
"query", "gold"}``, gold being lower-cased tool names) through
:func:`metaserver.registry.search.search_tools` and prints:

- recall@k: the fraction of a request's gold names among the names of the top k tools;
- ndcg@10: binary relevance (a tool is relevant when its lower-cased name is in gold), ideal
  DCG over min(|gold|, 10) positions;
- p50_ms, p95_ms: milliseconds per query for the search alone, index already built.

Each figure is averaged over the requests. Only the project's runtime dependencies are used.

    uv run python bench/retrieval.py TOOLS.jsonl QUERIES.jsonl [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.registry.search import search_tools
from metaserver.settings import Settings

DEPTH = 10


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def build_registry(tools: list[dict[str, Any]], settings: Settings) -> tuple[Registry, float]:
    """Register the tools, one server per ``server``; returns the registry and the seconds."""
    by_server: dict[str, list[ToolRecord]] = defaultdict(list)
    for tool in tools:
        by_server[tool["server"]].append(
            ToolRecord(
                name=tool["name"],
                description=tool.get("description") or "",
                target=tool["name"],
                input_schema=tool.get("input_schema") or {"type": "object", "properties": {}},
                definition_hash=tool["name"],
            )
        )
    registry = Registry(settings.registry_path)
    started = time.perf_counter()
    for index, (server, records) in enumerate(by_server.items()):
        where = settings.servers_dir / f"bench-{index}"
        registry.register(
            ServerRecord(
                name=server,
                version_id="v1",
                source=f"bench:{server}",
                output_dir=where,
                python_path=Path(sys.executable),
                venv=Path(sys.prefix),
                generator_version="bench",
                tools=records,
            )
        )
    return registry, time.perf_counter() - started


def ndcg(ranked: list[str], gold: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, name in enumerate(ranked[:DEPTH]) if name in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), DEPTH)))
    return dcg / ideal if ideal else 0.0


def recall(ranked: list[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def evaluate(registry: Registry, queries: list[dict[str, Any]]) -> dict[str, float]:
    scores: dict[str, list[float]] = defaultdict(list)
    latencies: list[float] = []
    search_tools(registry, "warm up", limit=DEPTH)  # lazy loads are not a query's cost
    for request in queries:
        gold = {name.lower() for name in request["gold"]}
        began = time.perf_counter()
        hits = search_tools(registry, request["query"], limit=DEPTH)
        latencies.append((time.perf_counter() - began) * 1000)
        ranked = [hit.tool.lower() for hit in hits]
        for k in (1, 5, 10):
            scores[f"recall@{k}"].append(recall(ranked, gold, k))
        scores["ndcg@10"].append(ndcg(ranked, gold))
    result = {key: round(statistics.mean(values), 3) for key, values in scores.items()}
    result["p50_ms"] = round(statistics.median(latencies), 2)
    result["p95_ms"] = round(statistics.quantiles(latencies, n=20, method="inclusive")[18], 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tools", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    tools, queries = read_jsonl(options.tools), read_jsonl(options.queries)
    with tempfile.TemporaryDirectory(prefix="metaserver-retrieval-") as home:
        os.environ["METASERVER_HOME"] = home
        registry, seconds = build_registry(tools, Settings(home=Path(home)))
        result = evaluate(registry, queries)
    if options.json:
        print(json.dumps(result))
        return 0
    print(f"{len(tools)} tools registered in {seconds:.2f} s; {len(queries)} requests")
    for key, value in result.items():
        print(f"{key:10} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
