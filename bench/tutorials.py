"""What becomes of each source's tutorials (issue 30): the table of its note.

Usage::

    uv run python bench/tutorials.py SOURCE [SOURCE ...] [--max-tools N] [--json FILE]
        [--keep DIR]

Each SOURCE (a git URL, a local directory, ``pypi:NAME``) is converted in a fresh
``METASERVER_HOME`` with no model (``--keep DIR``: a home under DIR per source, kept, to
look at its generated server and runs afterwards). Per source: tutorials found (notebooks
and example scripts), tools made of them, how many were checked against stored outputs
(``notebook-outputs``) and how many were run here to make their reference
(``notebook-run``), the passed ones by check, the unseeded ones, the skipped ones by
reason, and the seconds of validation and of the tutorial runs. Not run by CI: it needs the
package index (or a warm cache) and minutes per source. On a loaded machine the seconds
are that machine's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from metaserver.pipeline import convert
from metaserver.settings import Settings


async def measure(source: str, max_tools: int | None, keep: Path | None) -> dict[str, Any]:
    # The machine is shared: the load beside each row says what its seconds are worth.
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        home = tempfile.mkdtemp(prefix="bench-tutorials-", dir=keep)
        report = await convert(source, settings=Settings(home=Path(home)), max_tools=max_tools)
    else:
        with tempfile.TemporaryDirectory(prefix="bench-tutorials-") as home:
            settings = Settings(home=Path(home))
            report = await convert(source, settings=settings, max_tools=max_tools)
    total = time.monotonic() - started
    load_after = os.getloadavg()[0]
    summary = report.tutorials
    runs = sum(v for k, v in report.seconds.items() if k.startswith("notebook:"))
    return {
        "source": source,
        "status": report.status,
        "found": summary.found if summary else 0,
        "tools": summary.tools if summary else 0,
        "stored": summary.stored if summary else 0,
        "executed": summary.executed if summary else 0,
        "passed": summary.passed if summary else {},
        "unseeded": summary.unseeded if summary else [],
        "skipped": summary.skipped if summary else {},
        "validate_s": report.seconds.get("validate", 0.0),
        # Each tutorial tool's outcome, for finding out why one failed.
        "outcomes": [
            {
                "name": t.name,
                "target": t.target,
                "status": t.status,
                "check": t.evidence.check if t.evidence else None,
                "error": (t.error or "")[:300],
            }
            for t in report.tools
            if t.target.endswith((".ipynb", ".py", ".md", ".rst", ".txt"))
        ],
        "failure": str(report.failure)[:500] if report.failure else None,
        "tutorial_runs_s": round(runs, 2),
        "total_s": round(total, 1),
        "load": f"{load_before:.1f}-{load_after:.1f}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--max-tools", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    rows = [asyncio.run(measure(source, args.max_tools, args.keep)) for source in args.sources]
    columns = (
        "found | tools | stored | run here | passed | unseeded | validate s | runs s | "
        "total s | load"
    )
    print(f"| source | {columns} |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        passed = ", ".join(f"{k} {v}" for k, v in sorted(row["passed"].items())) or "0"
        print(
            f"| {row['source']} | {row['found']} | {row['tools']} | {row['stored']} | "
            f"{row['executed']} | {passed} | {len(row['unseeded'])} | {row['validate_s']} | "
            f"{row['tutorial_runs_s']} | {row['total_s']} | {row['load']} |"
        )
    for row in rows:
        for reason, count in sorted(row["skipped"].items(), key=lambda item: -item[1]):
            print(f"  {row['source']}: skipped {count}: {reason}")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
