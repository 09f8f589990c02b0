"""The meta-server's Prometheus metrics, served at ``/metrics`` (prometheus-client).

One :class:`~prometheus_client.CollectorRegistry` of our own, not the library's global one:
what is scraped is metaserver's and nothing that another library of the process registers.
Counters only grow for the life of the process, as Prometheus expects; a test reads what
changed between two scrapes.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

REGISTRY = CollectorRegistry(auto_describe=True)

# Conversions last seconds to many minutes; calls and searches milliseconds to a minute.
_STAGE_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
_CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

CONVERSIONS = Counter(
    "metaserver_conversions",
    "Conversions ended, by status (success, failed, cancelled, error).",
    ["status"],
    registry=REGISTRY,
)
STAGE_SECONDS = Histogram(
    "metaserver_conversion_stage_seconds",
    "Seconds each conversion stage took.",
    ["stage"],
    buckets=_STAGE_BUCKETS,
    registry=REGISTRY,
)
CALLS = Counter(
    "metaserver_tool_calls",
    "Calls of registered tools proxied to their servers, by outcome (ok: a result, "
    "error: an error result, exception: no result).",
    ["server", "tool", "outcome"],
    registry=REGISTRY,
)
CALL_SECONDS = Histogram(
    "metaserver_tool_call_seconds",
    "Seconds a proxied call took, the child's start included when it started one.",
    ["server", "tool"],
    buckets=_CALL_BUCKETS,
    registry=REGISTRY,
)
SEARCH_SECONDS = Histogram(
    "metaserver_search_seconds",
    "Seconds a ranked search of the registry took (list_tools, find_tools, the page).",
    buckets=_CALL_BUCKETS,
    registry=REGISTRY,
)
LIVE_CHILDREN = Gauge(
    "metaserver_live_children",
    "Generated or added servers running as children now.",
    registry=REGISTRY,
)


def record_conversion(status: str) -> None:
    """Count one ended conversion."""
    CONVERSIONS.labels(status=status).inc()


def observe_stage(stage: str, seconds: float) -> None:
    """Record how long one stage of a conversion took."""
    STAGE_SECONDS.labels(stage=stage).observe(seconds)


def observe_call(server: str, tool: str, outcome: str, seconds: float) -> None:
    """Record one proxied call."""
    CALLS.labels(server=server, tool=tool, outcome=outcome).inc()
    CALL_SECONDS.labels(server=server, tool=tool).observe(seconds)


def timed_search() -> AbstractContextManager[None]:
    """A block whose seconds are one ranked search's."""
    timer: AbstractContextManager[None] = SEARCH_SECONDS.time()
    return timer


def watch_children(count: Callable[[], int]) -> None:
    """Read the live-children gauge from ``count`` at each scrape (the serving pool's)."""
    LIVE_CHILDREN.set_function(lambda: float(count()))


def exposition() -> tuple[bytes, str]:
    """The metrics in the Prometheus text format, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
