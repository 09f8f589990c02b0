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

Each figure is averaged over the requests. The requests are also split into ``--folds`` folds
by a hash of their ids (``int(sha256(id), 16) % folds``), and each fold's figures are printed
with their spread: a change is judged by k-fold cross validation, kept only when the mean
rises and no fold falls by more than 0.02 (ARCHITECTURE.md, decision 34). ``--save FILE``
writes the per-fold figures; ``--baseline FILE`` (a file saved before, at another commit)
prints each fold's change against it and whether the change passes that rule.

``--cache DIR`` keeps the embeddings of the tools' texts on disk between runs (keyed by the
model and the text): registering the 527 tools of the development set is most of a run's CPU
on a shared machine. Requests are always embedded anew, so latency is unchanged. Only the
project's runtime dependencies are used.

    uv run python bench/retrieval.py TOOLS.jsonl QUERIES.jsonl [--folds 5] [--json]
        [--cache /tmp/metaserver-retrieval-cache] [--save F.json] [--baseline F.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.registry.embeddings import DIMENSION, MODEL_ID, Vectors, embedder
from metaserver.registry.search import search_tools
from metaserver.settings import Settings

DEPTH = 10
METRICS = ("recall@1", "recall@5", "recall@10", "ndcg@10")
# The rule a change is judged by: the mean of the folds rises, and no fold falls by more.
MAX_FOLD_DROP = 0.02
# The figures the rule is applied to.
JUDGED = ("recall@5", "recall@10")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def fold_of(request_id: str, folds: int) -> int:
    """The fold of a request: a hash of its id, so that folds stay put between runs."""
    return int(hashlib.sha256(request_id.encode()).hexdigest(), 16) % folds


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


class EmbeddingCache:
    """Text embeddings kept in a SQLite file, keyed by the model and the text."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        # Search embeds on a worker thread: one connection, used under a lock.
        self._db = sqlite3.connect(directory / "embeddings.sqlite", check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, v BLOB)")

    def wrap(self, embed: Callable[[Sequence[str]], Vectors]) -> Callable[[Sequence[str]], Vectors]:
        def cached(texts: Sequence[str]) -> Vectors:
            with self._lock:
                return self._cached(embed, texts)

        return cached

    def _cached(self, embed: Callable[[Sequence[str]], Vectors], texts: Sequence[str]) -> Vectors:
        keys = [hashlib.sha256(f"{MODEL_ID}\0{t}".encode()).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(
                self._db.execute(
                    f"SELECT key, v FROM vectors WHERE key IN ({marks})",  # noqa: S608
                    part,
                ).fetchall()
            )
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            fresh = embed([texts[i] for i in missing])
            rows = [(keys[i], fresh[n].astype("<f4").tobytes()) for n, i in enumerate(missing)]
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            self._db.commit()
            found.update(rows)
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = np.frombuffer(found[key], dtype="<f4")
        return out


@contextmanager
def cached_embeddings(directory: Path | None) -> Iterator[None]:
    """While inside, the process's embedder reads and writes ``directory``'s cache."""
    model = embedder()
    if directory is None or model is None:
        yield
        return
    original = model.embed
    model.embed = EmbeddingCache(directory).wrap(original)  # type: ignore[method-assign]
    try:
        yield
    finally:
        model.embed = original  # type: ignore[method-assign]


def ndcg(ranked: list[str], gold: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, name in enumerate(ranked[:DEPTH]) if name in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), DEPTH)))
    return dcg / ideal if ideal else 0.0


def recall(ranked: list[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def score_requests(
    registry: Registry, queries: list[dict[str, Any]]
) -> tuple[list[dict[str, float]], list[float]]:
    """Each request's figures, and each search's milliseconds."""
    scores: list[dict[str, float]] = []
    latencies: list[float] = []
    for request in queries:
        gold = {name.lower() for name in request["gold"]}
        began = time.perf_counter()
        hits = search_tools(registry, request["query"], limit=DEPTH)
        latencies.append((time.perf_counter() - began) * 1000)
        ranked = [hit.tool.lower() for hit in hits]
        figures = {f"recall@{k}": recall(ranked, gold, k) for k in (1, 5, 10)}
        figures["ndcg@10"] = ndcg(ranked, gold)
        scores.append(figures)
    return scores, latencies


def mean_of(scores: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.mean(s[key] for s in scores), 3) for key in METRICS}


def per_fold(
    queries: list[dict[str, Any]], scores: list[dict[str, float]], folds: int
) -> list[dict[str, float]]:
    """Each fold's figures (its requests' means), fold 0 first."""
    groups: dict[int, list[dict[str, float]]] = defaultdict(list)
    for request, figures in zip(queries, scores, strict=True):
        groups[fold_of(str(request["id"]), folds)].append(figures)
    return [{"n": len(groups[f]), **mean_of(groups[f])} for f in range(folds) if groups[f]]


def evaluate(registry: Registry, queries: list[dict[str, Any]], folds: int) -> dict[str, Any]:
    search_tools(registry, "warm up", limit=DEPTH)  # lazy loads are not a query's cost
    scores, latencies = score_requests(registry, queries)
    result: dict[str, Any] = dict(mean_of(scores))
    result["p50_ms"] = round(statistics.median(latencies), 2)
    result["p95_ms"] = round(statistics.quantiles(latencies, n=20, method="inclusive")[18], 2)
    result["folds"] = per_fold(queries, scores, folds)
    return result


def judge(result: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Lines comparing ``result``'s folds with ``baseline``'s, and the verdict per figure."""
    lines = []
    for key in JUDGED:
        deltas = [
            round(now[key] - before[key], 3)
            for now, before in zip(result["folds"], baseline["folds"], strict=True)
        ]
        mean = round(statistics.mean(deltas), 3)
        passes = mean > 0 and min(deltas) >= -MAX_FOLD_DROP
        lines.append(
            f"{key:10} fold deltas {deltas} mean {mean:+.3f}: "
            + ("passes" if passes else "does not pass")
            + f" (mean rises, no fold falls by more than {MAX_FOLD_DROP})"
        )
    return lines


def fold_table(folds: list[dict[str, float]]) -> list[str]:
    lines = ["fold  n   " + "  ".join(f"{key:>9}" for key in METRICS)]
    for index, fold in enumerate(folds):
        cells = "  ".join(f"{fold[key]:9.3f}" for key in METRICS)
        lines.append(f"{index:<5} {int(fold['n']):<3} {cells}")
    for name, summary in (("mean", statistics.mean), ("sd", statistics.pstdev)):
        cells = "  ".join(f"{summary([f[key] for f in folds]):9.3f}" for key in METRICS)
        lines.append(f"{name:<9} {cells}")
    low = "  ".join(f"{min(f[key] for f in folds):9.3f}" for key in METRICS)
    high = "  ".join(f"{max(f[key] for f in folds):9.3f}" for key in METRICS)
    lines += [f"{'min':<9} {low}", f"{'max':<9} {high}"]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tools", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds")
    parser.add_argument("--cache", type=Path, help="a folder for the tools' embeddings")
    parser.add_argument("--save", type=Path, help="write the figures as JSON here")
    parser.add_argument("--baseline", type=Path, help="figures saved before, to compare with")
    options = parser.parse_args()
    if options.folds < 1:
        parser.error("--folds must be at least 1")
    tools, queries = read_jsonl(options.tools), read_jsonl(options.queries)
    with tempfile.TemporaryDirectory(prefix="metaserver-retrieval-") as home:
        os.environ["METASERVER_HOME"] = home
        with cached_embeddings(options.cache):
            registry, seconds = build_registry(tools, Settings(home=Path(home)))
            search_tools(registry, "warm up", limit=DEPTH)  # fills any missing vectors
        result = evaluate(registry, queries, options.folds)
    if options.save is not None:
        options.save.write_text(json.dumps(result), encoding="utf-8")
    baseline = json.loads(options.baseline.read_text()) if options.baseline else None
    if options.json:
        print(json.dumps(result))
        return 0
    print(f"{len(tools)} tools registered in {seconds:.2f} s; {len(queries)} requests")
    for key, value in result.items():
        if key != "folds":
            print(f"{key:10} {value}")
    print(f"\n{options.folds} folds (by a hash of the request id):")
    print("\n".join(fold_table(result["folds"])))
    if baseline is not None:
        print(f"\nagainst {options.baseline}:")
        print("\n".join(judge(result, baseline)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
