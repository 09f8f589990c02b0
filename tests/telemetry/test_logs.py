"""Log lines carry the trace id of the span they are written under, as text or JSON."""

from __future__ import annotations

import io
import json
import logging

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from metaserver.telemetry import tracing
from metaserver.telemetry.logs import log_handler


def _logger(stream: io.StringIO, log_format: str) -> logging.Logger:
    logger = logging.getLogger(f"test-logs-{log_format}")
    logger.handlers = [log_handler(log_format, stream)]  # type: ignore[arg-type]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


def test_json_lines_carry_the_current_trace_id() -> None:
    tracing.use_provider(TracerProvider())
    try:
        stream = io.StringIO()
        logger = _logger(stream, "json")
        logger.info("outside")
        with tracing.span("conversion") as current:
            logger.warning("inside %s", "a span")
            expected = trace.format_trace_id(current.get_span_context().trace_id)
        outside, inside = (json.loads(line) for line in stream.getvalue().splitlines())
    finally:
        tracing.use_provider(None)
    assert outside["message"] == "outside" and "trace_id" not in outside
    assert inside["message"] == "inside a span" and inside["level"] == "WARNING"
    assert inside["trace_id"] == expected and len(inside["span_id"]) == 16
    assert inside["time"].endswith("Z")


def test_text_lines_name_the_trace() -> None:
    tracing.use_provider(TracerProvider())
    try:
        stream = io.StringIO()
        logger = _logger(stream, "text")
        with tracing.span("call") as current:
            logger.info("called")
            expected = trace.format_trace_id(current.get_span_context().trace_id)
    finally:
        tracing.use_provider(None)
    assert f"trace={expected}: called" in stream.getvalue()


def test_an_exception_is_kept_in_its_json_line() -> None:
    stream = io.StringIO()
    logger = _logger(stream, "json")
    try:
        raise ValueError("bad value")
    except ValueError:
        logger.exception("failed")
    line = json.loads(stream.getvalue())
    assert line["message"] == "failed" and "ValueError: bad value" in line["exception"]
