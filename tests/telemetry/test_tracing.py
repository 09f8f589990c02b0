"""configure(): spans are real (ids for the logs) with or without an OTLP endpoint; the
exporter is added only when OTEL_EXPORTER_OTLP_ENDPOINT is set."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider

from metaserver.telemetry import tracing


def _processors(provider: TracerProvider) -> list[object]:
    return list(provider._active_span_processor._span_processors)


def test_no_endpoint_no_exporter_but_trace_ids() -> None:
    tracing.use_provider(None)
    try:
        provider = tracing.configure({})
        assert _processors(provider) == []
        with tracing.span("stage"):
            trace_id, span_id = tracing.current_ids()
        assert len(trace_id) == 32 and len(span_id) == 16
    finally:
        tracing.use_provider(None)
    assert tracing.current_ids() == ("", "")


def test_an_endpoint_adds_the_otlp_exporter() -> None:
    tracing.use_provider(None)
    try:
        provider = tracing.configure({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
        (processor,) = _processors(provider)
        assert type(processor.span_exporter).__name__ == "OTLPSpanExporter"  # type: ignore[attr-defined]
        provider.shutdown()
    finally:
        tracing.use_provider(None)


def test_a_provider_given_first_is_kept() -> None:
    mine = TracerProvider()
    tracing.use_provider(mine)
    try:
        assert tracing.configure({}) is mine
    finally:
        tracing.use_provider(None)


def test_uncollected_spans_keep_the_trace_and_nest() -> None:
    """Without an exporter a span is a context alone: a new trace at the top, the parent's
    trace within a span (the client's traceparent on a fast call), a span id of its own."""
    tracing.use_provider(None)
    try:
        tracing.configure({})
        with tracing.span("call") as outer:
            outer_ids = tracing.current_ids()
            with tracing.span("stage") as inner:
                inner_ids = tracing.current_ids()
            assert tracing.current_ids() == outer_ids
        assert not outer.is_recording() and not inner.is_recording()
        assert inner_ids[0] == outer_ids[0] and inner_ids[1] != outer_ids[1]
        with tracing.span("call"):
            other = tracing.current_ids()
        assert other[0] != outer_ids[0] and len(other[0]) == 32
    finally:
        tracing.use_provider(None)
    assert tracing.current_ids() == ("", "")


def test_a_provider_given_records_its_spans() -> None:
    """A provider given with use_provider (a test's, an operator's) gets real spans."""
    tracing.use_provider(TracerProvider())
    try:
        with tracing.span("call") as current:
            assert current.is_recording()
    finally:
        tracing.use_provider(None)
