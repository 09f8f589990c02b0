"""Conversions per hour with `metaserver batch`, and the disk a shared registry takes.

Usage::

    uv run python bench/batch_throughput.py CORPUS [--runs local:1,local:2,ray:2] [--alone]
                                            [--json FILE]

Each run is ``metaserver batch CORPUS --executor E --concurrency N --json`` in a fresh
``METASERVER_HOME`` (only uv's package cache is shared, warm after the first run), started as
the user would start it. Per run it prints: sources, succeeded, wall seconds, conversions per
hour, the speed-up over the first run (measured in this one invocation, so the machine's load
is alike), the load average before and after, and the home's bytes (``du``, hard links
counted once). With ``--alone``, every source is also converted by itself in a home of its own,
and the table ends with the disk the shared home takes against the largest home alone and
against the sum of them all: what the shared-file store saves (issue #17). Not run by CI: it
needs the package index (or a warm cache) and tens of minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HOUR = 3600.0


def tree_bytes(root: Path) -> int:
    """Bytes under ``root``, each inode once, as ``du`` counts them."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for directory, _, files in os.walk(root):
        for name in files:
            try:
                stat = os.lstat(Path(directory) / name)
            except OSError:
                continue
            if (stat.st_dev, stat.st_ino) in seen:
                continue
            seen.add((stat.st_dev, stat.st_ino))
            total += stat.st_blocks * 512
    return total


def batch(corpus: Path, home: Path, executor: str, concurrency: int) -> dict[str, Any]:
    """One `metaserver batch` run in ``home``; its row."""
    command = [sys.executable, "-m", "metaserver", "batch", str(corpus)]
    command += ["--executor", executor, "--concurrency", str(concurrency), "--json"]
    environment = {**os.environ, "METASERVER_HOME": str(home)}
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    finished = subprocess.run(command, env=environment, capture_output=True, text=True)
    seconds = time.monotonic() - started
    try:
        rows = json.loads(finished.stdout)
    except ValueError:
        rows = []
        sys.stderr.write(finished.stderr[-2000:])
    succeeded = sum(1 for row in rows if row.get("status") == "success")
    return {
        "run": f"{executor}:{concurrency}",
        "sources": len(rows),
        "succeeded": succeeded,
        "tools_passed": sum(int(row.get("tools_passed") or 0) for row in rows),
        "seconds": round(seconds, 1),
        "per_hour": round(len(rows) * HOUR / seconds, 1) if seconds else 0.0,
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "bytes": tree_bytes(home),
        "exit": finished.returncode,
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", default="local:1,local:2,ray:2")
    parser.add_argument("--alone", action="store_true", help="also each source in its own home")
    parser.add_argument("--json", type=Path, help="write every row here")
    arguments = parser.parse_args()
    sources = [line.split("#", 1)[0].strip() for line in arguments.corpus.read_text().splitlines()]
    sources = [source for source in sources if source]
    root = Path(tempfile.mkdtemp(prefix="metaserver-throughput-"))
    results: list[dict[str, Any]] = []
    print("| run | sources | succeeded | tools passed | seconds | per hour | speed-up | load |")
    print("|---|---|---|---|---|---|---|---|")
    for index, run in enumerate(arguments.runs.split(",")):
        executor, _, concurrency = run.partition(":")
        row = batch(arguments.corpus, root / f"home-{index}", executor, int(concurrency or 1))
        results.append(row)
        speed_up = results[0]["seconds"] / row["seconds"] if row["seconds"] else 0.0
        print(
            f"| {row['run']} | {row['sources']} | {row['succeeded']} | {row['tools_passed']} "
            f"| {row['seconds']} | {row['per_hour']} | {speed_up:.2f}x "
            f"| {row['load_before']} → {row['load_after']} |",
            flush=True,
        )
    if arguments.alone:
        alone = []
        for index, source in enumerate(sources):
            single = root / f"alone-{index}.txt"
            single.write_text(source + "\n")
            row = batch(single, root / f"alone-home-{index}", "local", 1)
            alone.append({"source": source, "bytes": row["bytes"], "status": row["rows"]})
        shared = results[-1]["bytes"]
        largest = max(item["bytes"] for item in alone)
        total = sum(item["bytes"] for item in alone)
        print(f"\nshared home ({results[-1]['run']}): {shared / 1e6:.0f} MB")
        print(f"largest alone: {largest / 1e6:.0f} MB; all alone together: {total / 1e6:.0f} MB")
        print(
            f"shared / largest alone: {shared / largest:.2f}x; shared / sum: {shared / total:.2f}"
        )
        results.append({"alone": alone})
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=2))
    print(f"\nhomes kept under {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
