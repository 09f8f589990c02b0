"""``metaserver batch``: skip what is registered, convert the rest, report each and all."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from metaserver.batch.local import run_local
from metaserver.batch.ray_executor import run_ray
from metaserver.batch.rows import BatchRow
from metaserver.batch.sources import read_sources, registered_as
from metaserver.exceptions import UserError
from metaserver.registry.store import Registry
from metaserver.settings import Settings

Executor = Literal["local", "ray"]


def run_batch(
    file: Path,
    settings: Settings,
    executor: Executor,
    concurrency: int,
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> list[BatchRow]:
    """Convert every source of ``file`` not registered yet; one row per source, in order.

    Raises:
        UserError: the file is unreadable or empty, or the executor cannot be had.
    """
    if concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    sources = read_sources(file)
    registry = Registry(settings.registry_path)
    rows: dict[str, BatchRow] = {}
    todo: list[str] = []
    for source in sources:
        record = registered_as(registry, source)
        if record is None:
            todo.append(source)
            continue
        rows[source] = BatchRow(
            source=source, status="skipped", server=record.name, tools_passed=len(record.tools)
        )
        progress(f"skipped {source}: registered as {record.ref}")
    total = len(todo)

    def done(row: BatchRow) -> None:
        rows[row.source] = row
        finished = sum(1 for r in rows.values() if r.status != "skipped")
        failed = sum(1 for r in rows.values() if r.status == "failed")
        outcome = f"{row.tools_passed} tools" if row.status == "success" else row.failure
        progress(
            f"[{finished}/{total}] {row.status} {row.source} ({row.seconds:.0f} s): {outcome}"
            f" — {finished - failed} converted, {failed} failed so far"
        )

    if todo:
        if executor == "ray":
            run_ray(todo, settings, concurrency, done)
        else:
            asyncio.run(run_local(todo, settings, concurrency, done))
    return [rows[source] for source in sources]
