"""After a real conversion and 50 calls through the HTTP meta-server, /metrics counts them
right, and an in-memory span exporter holds one span per stage under the conversion's."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastmcp import Client
from fixture_repos import make_calc_repo
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families
from serving import serving_http

from metaserver.pipeline import STAGES
from metaserver.settings import Settings
from metaserver.telemetry import tracing

pytestmark = pytest.mark.integration

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def _scrape(http: httpx.AsyncClient, base: str) -> Samples:
    answer = await http.get(base + "/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def _delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def test_a_conversion_and_50_calls_are_counted_and_traced(
    tmp_path: Path, settings: Settings
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    try:
        async with (
            serving_http(settings) as url,
            httpx.AsyncClient(timeout=60) as http,
            Client(url, timeout=600) as client,
        ):
            base = url.removesuffix("/mcp")
            before = await _scrape(http, base)
            converted = await client.call_tool("convert_repo", {"source": str(repo)})
            assert converted.structured_content["status"] == "success"
            for n in range(40):
                assert (await client.call_tool("calcpack_add", {"a": n, "b": 1})).data == n + 1
            for n in range(10):
                via = await client.call_tool(
                    "call_generated",
                    {"server": "calcpack", "tool": "fibonacci", "arguments": {"n": n + 1}},
                )
                assert len(via.data) == n + 1
            failed = await client.call_tool(
                "call_generated",
                {"server": "calcpack", "tool": "mean", "arguments": {"values": []}},
                raise_on_error=False,
            )
            assert failed.is_error
            found = await client.call_tool("find_tools", {"task": "add two integers"})
            assert found.structured_content["result"][0]["tool"] == "add"
            after = await _scrape(http, base)
    finally:
        tracing.use_provider(None)

    calls = "metaserver_tool_calls_total"
    assert _delta(before, after, "metaserver_conversions_total", status="success") == 1
    assert _delta(before, after, "metaserver_conversions_total", status="failed") == 0
    for stage in STAGES:
        count = "metaserver_conversion_stage_seconds_count"
        assert _delta(before, after, count, stage=stage) == 1, stage
    assert _delta(before, after, calls, server="calcpack", tool="add", outcome="ok") == 40
    assert _delta(before, after, calls, server="calcpack", tool="fibonacci", outcome="ok") == 10
    assert _delta(before, after, calls, server="calcpack", tool="mean", outcome="error") == 1
    seconds = "metaserver_tool_call_seconds_count"
    assert _delta(before, after, seconds, server="calcpack", tool="add") == 40
    assert _delta(before, after, "metaserver_search_seconds_count") == 1
    assert after[("metaserver_live_children", frozenset())] == 1  # calcpack's child

    spans = exporter.get_finished_spans()
    (conversion,) = [s for s in spans if s.name == "conversion"]
    assert conversion.attributes is not None
    assert conversion.attributes["metaserver.status"] == "success"
    stages = [
        s for s in spans if s.parent is not None and s.parent.span_id == conversion.context.span_id
    ]
    assert sorted(s.name for s in stages) == sorted(STAGES)  # one span per stage, no more
    assert all(s.context.trace_id == conversion.context.trace_id for s in stages)
    proxied = [s for s in spans if s.name == "call"]
    assert len(proxied) == 51
    outcomes = [s.attributes["metaserver.outcome"] for s in proxied if s.attributes]
    assert outcomes.count("ok") == 50 and outcomes.count("error") == 1
