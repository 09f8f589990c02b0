"""The local executor: conversions run in this process, a bounded number at a time.

A conversion mostly waits on subprocesses (uv, the probe, the generated server), so one
event loop drives several; the bound keeps CPU and memory in reach: by default one
conversion per core, and no more than one per 4 GB of available memory (an environment
build with a scientific stack peaks at about 2-3 GB).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from metaserver.batch.rows import BatchRow
from metaserver.exceptions import UserError
from metaserver.settings import Settings

MEMORY_PER_CONVERSION = 4 * 1024**3


def default_concurrency() -> int:
    """Conversions at once that this machine's cores and available memory allow."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    available = _available_memory()
    by_memory = max(1, available // MEMORY_PER_CONVERSION) if available else cores or 1
    return max(1, min(cores or 1, by_memory))


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


async def run_local(
    sources: list[str],
    settings: Settings,
    concurrency: int,
    done: Callable[[BatchRow], None],
) -> list[BatchRow]:
    """Convert every source, ``concurrency`` at a time; ``done`` hears of each as it ends."""
    from metaserver.pipeline import convert  # lazily: the pipeline is heavy

    gate = asyncio.Semaphore(concurrency)

    async def one(source: str) -> BatchRow:
        async with gate:
            started = time.monotonic()
            try:
                report = await convert(source, settings=settings)
                row = BatchRow.from_report(source, report)
            except UserError as exc:
                row = BatchRow.error(source, f"bad source: {exc}", time.monotonic() - started)
            except Exception as exc:  # one source's surprise never stops the others
                row = BatchRow.error(source, f"internal error: {exc}", time.monotonic() - started)
            done(row)
            return row

    return list(await asyncio.gather(*(one(source) for source in sources)))
