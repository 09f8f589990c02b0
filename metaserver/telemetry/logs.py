"""Log lines on stderr that carry the trace id of the span they were written under: text
(the default) or one JSON object a line (``metaserver serve --log-format json``)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO, Literal

from metaserver.telemetry.tracing import current_ids

LogFormat = Literal["text", "json"]
TEXT = "%(asctime)s %(levelname)s %(name)s%(trace)s: %(message)s"
# The command line's own format (cli.py's basicConfig), with the trace: "INFO name trace=..: m"
CLI_TEXT = "%(levelname)s %(name)s%(trace)s: %(message)s"


class TraceIds(logging.Filter):
    """Adds ``trace_id`` and ``span_id`` (empty outside a span), and ``trace`` (`` trace=ID``
    or empty, for the text format), to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        trace_id, span_id = current_ids()
        record.trace_id, record.span_id = trace_id, span_id
        record.trace = f" trace={trace_id}" if trace_id else ""
        return True


class JsonLines(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, the trace
    and span ids when there are any, and the exception's text when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in ("trace_id", "span_id"):
            value = getattr(record, key, "")
            if value:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_handler(log_format: LogFormat, stream: IO[str] | None = None) -> logging.Handler:
    """A handler writing ``log_format`` lines with trace ids to ``stream`` (stderr)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(TraceIds())
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT))
    return handler


def configure_logging(log_format: LogFormat = "text") -> None:
    """Log INFO and above to stderr in ``log_format`` with trace ids.

    When the root logger already writes to stderr (the command line's ``basicConfig``),
    those handlers get the format and the ids instead; handlers writing elsewhere (a test
    runner's capture) are left as they are.
    """
    if log_format == "json":
        # FastMCP writes through a console handler of its own: its lines join the JSON ones.
        fastmcp = logging.getLogger("fastmcp")
        for own in list(fastmcp.handlers):
            fastmcp.removeHandler(own)
        fastmcp.propagate = True
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(log_handler(log_format))
        root.setLevel(logging.INFO)
        return
    for handler in root.handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stderr:
            handler.addFilter(TraceIds())
            handler.setFormatter(
                JsonLines() if log_format == "json" else logging.Formatter(CLI_TEXT)
            )
