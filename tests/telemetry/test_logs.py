"""Log lines carry the trace id of the span they are written under, as text or JSON."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from serving import free_port

from metaserver.telemetry import tracing
from metaserver.telemetry.logs import log_handler

METASERVER = str(Path(sys.executable).with_name("metaserver"))


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


@pytest.mark.integration
def test_serve_log_format_json_writes_json_lines_with_trace_ids(tmp_path: Path) -> None:
    home = tmp_path / "home"
    empty = tmp_path / "empty"  # fetched, then no project to build: a quick failure
    empty.mkdir()
    (empty / "README.md").write_text("nothing to convert\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    if "METASERVER_SANDBOX__BACKEND" in os.environ:
        env["METASERVER_SANDBOX__BACKEND"] = os.environ["METASERVER_SANDBOX__BACKEND"]
    command = [METASERVER, "serve", "--transport", "http", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--log-format", "json"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, "serve exited"
            try:
                httpx.get(base + "/", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "serve did not start"
                time.sleep(0.2)
        started = httpx.post(base + "/ui/conversions", json={"source": str(empty)}, timeout=60)
        assert started.status_code == 200
        while "data-refresh" in httpx.get(base + "/ui/conversions", timeout=60).text:
            assert time.monotonic() < deadline + 120, "the conversion did not end"
            time.sleep(0.5)
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=60)
    lines = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    assert any(line["logger"].startswith("fastmcp") for line in lines)  # its lines too
    fetch = [line for line in lines if line["message"] == "conversion: fetch"]
    assert len(fetch) == 1 and len(fetch[0]["trace_id"]) == 32  # under the conversion's span
    assert len(fetch[0]["span_id"]) == 16
