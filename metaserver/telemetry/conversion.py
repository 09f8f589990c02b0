"""A conversion and its stages, traced and measured: what ``metaserver/pipeline.py`` wraps
its ``convert`` and each stage in."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, Protocol, TypeVar

from metaserver.telemetry.metrics import observe_stage, record_conversion
from metaserver.telemetry.tracing import span

P = ParamSpec("P")


class _Ended(Protocol):
    @property
    def status(self) -> str: ...
    @property
    def server(self) -> str: ...


R = TypeVar("R", bound=_Ended)


def traced_conversion(
    convert: Callable[P, Coroutine[Any, Any, R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``convert`` in a ``conversion`` span, its end counted by status: the report's
    (``success``, ``failed``), ``cancelled``, or ``error`` (it raised: a bad source)."""

    @functools.wraps(convert)
    async def traced(*args: P.args, **kwargs: P.kwargs) -> R:
        with span("conversion") as current:
            try:
                report = await convert(*args, **kwargs)
            except asyncio.CancelledError:
                current.set_attribute("metaserver.status", "cancelled")
                record_conversion("cancelled")
                raise
            except Exception:
                record_conversion("error")
                raise
            current.set_attribute("metaserver.server", report.server)
            current.set_attribute("metaserver.status", report.status)
            record_conversion(report.status)
            return report

    return traced


@contextmanager
def traced_stage(stage: str) -> Iterator[None]:
    """One stage of a conversion: a span named after it, and its seconds observed."""
    started = time.monotonic()
    try:
        with span(stage, {"metaserver.stage": stage}):
            yield
    finally:
        observe_stage(stage, time.monotonic() - started)
