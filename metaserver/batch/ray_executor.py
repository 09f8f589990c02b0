"""The Ray executor: every conversion is a Ray task (``metaserver[ray]``).

``ray.init()`` joins the cluster that ``RAY_ADDRESS`` names, or starts a local Ray with
``concurrency`` CPUs. Each task runs the whole pipeline in a worker and registers the server
there: on a cluster the workers must reach the same ``METASERVER_HOME`` (a shared file
system: the registry is SQLite, written in one transaction per version) and the package
index or a mirror; the driver's ``METASERVER_*`` variables travel with the tasks. A task
whose worker dies is retried (``max_retries``); a conversion that fails is a result, not an
error, and is not retried.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from metaserver.batch.rows import BatchRow
from metaserver.exceptions import UserError
from metaserver.settings import Settings

WORKER_RETRIES = 2


def _convert_in_worker(source: str, home: str) -> dict[str, Any]:
    """One conversion inside a Ray worker; the row as JSON (a plain value travels anywhere)."""
    from metaserver.pipeline import convert  # lazily: the pipeline is heavy, only workers run it

    started = time.monotonic()
    try:
        report = asyncio.run(convert(source, settings=Settings(home=Path(home))))
        row = BatchRow.from_report(source, report)
    except UserError as exc:
        row = BatchRow.error(source, f"bad source: {exc}", time.monotonic() - started)
    return row.model_dump(mode="json")


def run_ray(
    sources: list[str],
    settings: Settings,
    concurrency: int,
    done: Callable[[BatchRow], None],
) -> list[BatchRow]:
    """Convert every source as a Ray task; ``done`` hears of each as it ends.

    Raises:
        UserError: Ray is not installed.
    """
    try:
        import ray
    except ImportError:
        raise UserError(
            "the ray executor needs Ray: pip install 'metaserver[ray]' (or use --executor local)"
        ) from None
    variables = {k: v for k, v in os.environ.items() if k.startswith("METASERVER_")}
    started_here = not ray.is_initialized()
    if started_here:
        address = os.environ.get("RAY_ADDRESS") or None
        ray.init(
            address=address,
            num_cpus=None if address else concurrency,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": variables},
        )
    try:
        task = ray.remote(max_retries=WORKER_RETRIES, num_cpus=1)(_convert_in_worker)
        pending = {task.remote(source, str(settings.home)): source for source in sources}
        rows: list[BatchRow] = []
        waiting = list(pending)
        while waiting:
            finished, waiting = ray.wait(waiting, num_returns=1)
            for ref in finished:
                try:
                    row = BatchRow.model_validate(ray.get(ref))
                except Exception as exc:  # the task failed beyond its retries
                    row = BatchRow.error(pending[ref], f"ray task failed: {exc}")
                done(row)
                rows.append(row)
        order = {source: index for index, source in enumerate(sources)}
        return sorted(rows, key=lambda row: order[row.source])
    finally:
        if started_here:
            ray.shutdown()
