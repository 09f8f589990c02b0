"""OpenTelemetry spans: a span per conversion, per stage and per proxied call.

``metaserver serve`` calls :func:`configure`: an SDK tracer provider always (so that each
conversion and call has a trace id, which every log line written under it carries,
:mod:`metaserver.telemetry.logs`), and an OTLP exporter only when
``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (the exporter reads the standard ``OTEL_EXPORTER_OTLP_*``
variables itself); without it no span leaves the process. Elsewhere (``metaserver convert``,
a library user) spans go to whatever provider the process has set, by default OpenTelemetry's
no-op one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.util.types import AttributeValue

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
_NAME = "metaserver"

_provider: trace.TracerProvider | None = None
_tracer: trace.Tracer | None = None
_global_set = False
# Whether the spans are collected by nobody: the provider :func:`configure` made without an
# exporter. Its spans then only give log lines their ids, which a span context alone gives.
_uncollected = False
_ids = RandomIdGenerator()
_SAMPLED = trace.TraceFlags(trace.TraceFlags.SAMPLED)


def configure(environ: Mapping[str, str] = os.environ) -> TracerProvider:
    """Make metaserver's spans real: an SDK provider, exporting over OTLP/HTTP only when
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set in ``environ``.

    The provider also becomes the process's global one (once): FastMCP's own spans of each
    MCP request then share the trace of the call they serve. A provider given earlier to
    :func:`use_provider` (a test's) is kept.
    """
    global _global_set
    if isinstance(_provider, TracerProvider):
        return _provider
    provider = TracerProvider(resource=Resource.create({"service.name": _NAME}))
    exported = bool(environ.get(ENDPOINT, "").strip())
    if exported:
        # Imported here: the exporter pulls in protobuf, which a process without an
        # endpoint never needs.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    use_provider(provider)
    _set_uncollected(not exported)
    if not _global_set:
        trace.set_tracer_provider(provider)
        _global_set = True
    return provider


def use_provider(provider: trace.TracerProvider | None) -> None:
    """Send metaserver's spans to ``provider`` (None: the global one); tests pass one with an
    in-memory exporter."""
    global _provider, _tracer
    _provider = provider
    _tracer = None
    _set_uncollected(False)


def _set_uncollected(value: bool) -> None:
    global _uncollected
    _uncollected = value


def tracer() -> trace.Tracer:
    """The tracer metaserver's spans are made with."""
    global _tracer
    if _tracer is None:
        # Kept: made anew it cost every proxied call a fifth of a millisecond (issue 31). A
        # tracer of the global provider is a proxy that follows a provider set later.
        _tracer = trace.get_tracer(_NAME, tracer_provider=_provider)
    return _tracer


@contextmanager
def span(name: str, attributes: Mapping[str, AttributeValue] | None = None) -> Iterator[trace.Span]:
    """A span, current while the block runs; an exception leaving it is recorded on it.

    When nobody collects spans (:func:`configure` without an exporter) it is a span context
    alone, in the current trace or a new one: the ids a log line carries, without the SDK's
    span, its attributes and its processors' calls (a tenth of a proxied call, issue 31).
    """
    if _uncollected:
        parent = trace.get_current_span().get_span_context()
        light = trace.NonRecordingSpan(
            trace.SpanContext(
                parent.trace_id if parent.is_valid else _ids.generate_trace_id(),
                _ids.generate_span_id(),
                is_remote=False,
                trace_flags=parent.trace_flags if parent.is_valid else _SAMPLED,
            )
        )
        token = otel_context.attach(trace.set_span_in_context(light))
        try:
            yield light
        finally:
            otel_context.detach(token)
        return
    with tracer().start_as_current_span(name, attributes=attributes) as current:
        yield current


def current_ids() -> tuple[str, str]:
    """The current trace and span ids in hex, or two empty strings outside any span."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return "", ""
    return trace.format_trace_id(context.trace_id), trace.format_span_id(context.span_id)
