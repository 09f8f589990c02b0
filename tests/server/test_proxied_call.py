"""Every proxied call, on the stdio fast path as on FastMCP's path, is checked for scope,
audited and measured: the real meta-server (``build_served``: its Guard, its fast route) with
a real MCP client, the fast path's claims watched so that each test knows which path a call
took."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from fake_children import fast_settings, register_fake
from mcp import ClientSession
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.shared.message import SessionMessage
from opentelemetry import propagate
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from metaserver.auth.audit import AuditLog
from metaserver.auth.context import for_principal
from metaserver.auth.guard import Guard
from metaserver.auth.roles import Principal
from metaserver.registry.store import Registry
from metaserver.server.app import build_served
from metaserver.server.fast_calls import FastCall
from metaserver.server.proxied_call import guarded_route
from metaserver.server.stdio import serve_streams
from metaserver.settings import Settings
from metaserver.telemetry import tracing
from metaserver.telemetry.metrics import REGISTRY

METASERVER = str(Path(sys.executable).with_name("metaserver"))


@pytest.fixture(autouse=True)
def _untraced_client() -> Iterator[None]:
    """The client's calls carry no trace context but the one a test gives them: the MCP
    client writes ``traceparent`` into ``_meta`` whenever a tracer provider records (one an
    earlier test in this process set), naming a span of its own."""
    before = propagate.get_global_textmap()
    propagate.set_global_textmap(CompositePropagator([]))
    try:
        yield
    finally:
        propagate.set_global_textmap(before)


class _Served:
    """A client session to the meta-server, and the tool names its fast path took."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.fast: list[str] = []

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        full: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> Any:
        """Call ``name`` with ``meta``; ``full``: with a ``_meta`` entry that keeps it off the
        fast path."""
        sent = {**(meta or {}), **({"reference": True} if full else {})}
        return await self.session.call_tool(name, arguments, meta=sent or None)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def _served(settings: Settings, principal: Principal | None) -> AsyncIterator[_Served]:
    """The meta-server of ``settings`` served on memory streams as on stdio (fast path
    included), every request acting for ``principal`` (None: the local user)."""
    mcp, route = build_served(settings)
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](64)
    taken: list[str] = []

    def watched(name: str, arguments: Any) -> FastCall | None:
        call = route(name, arguments)
        if call is not None:
            taken.append(name)
        return call

    async def serve() -> None:
        if principal is not None:
            # Where the HTTP transport's auth middleware puts a verified bearer token.
            auth_context_var.set(AuthenticatedUser(for_principal(principal)))
        async with mcp._lifespan_manager():
            await serve_streams(mcp, server_reads, server_writes, watched)

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        async with ClientSession(from_server, to_server) as session:
            await session.initialize()
            served = _Served(session)
            served.fast = taken
            yield served
        await to_server.aclose()
        group.cancel_scope.cancel()


def _text(result: Any) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


def _rows(settings: Settings) -> list[dict[str, Any]]:
    return [event.as_json() for event in AuditLog(Registry(settings.registry_path)).events()]


def _same_row(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[k] for k in ("who", "action", "target", "outcome", "arguments_sha256"))


@pytest.mark.integration
async def test_a_refusal_is_the_same_on_the_fast_path(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "bench")
    alice = Principal("alice", "call", "other-*")  # sees no server called bench
    generated = {"server": "bench", "tool": "add", "arguments": {"a": 1, "b": 2}}
    async with _served(settings, alice) as served:
        for name, arguments in (("call_generated", generated), ("bench_add", {"a": 1, "b": 2})):
            fast = await served.call(name, arguments)
            full = await served.call(name, arguments, full=True)
            assert served.fast.count(name) == 1, served.fast  # the first call only
            assert fast.is_error and full.is_error
            assert _text(fast) == _text(full)
            assert _text(fast).startswith("forbidden: alice may not use server 'bench'")
    rows = _rows(settings)
    assert [(r["action"], r["outcome"], r["who"]) for r in rows] == [
        ("call_generated", "refused", "alice"),
        ("call_generated", "refused", "alice"),
        ("bench_add", "refused", "alice"),
        ("bench_add", "refused", "alice"),
    ]
    assert _same_row(rows[0]) == _same_row(rows[1]) and rows[0]["detail"] == rows[1]["detail"]
    assert _same_row(rows[2]) == _same_row(rows[3]) and rows[2]["detail"] == rows[3]["detail"]


def test_arguments_that_are_no_object_take_the_full_path() -> None:
    async def answer(arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        raise AssertionError("not called")

    route = guarded_route(lambda name, arguments: answer, Guard(AuditLog(Registry(Path())), str))
    assert route("bench_add", None) is not None and route("bench_add", {"a": 1}) is not None
    assert route("bench_add", [1, 2]) is None and route("bench_add", "a") is None


def _calls(server: str, tool: str, outcome: str) -> float:
    labels = {"server": server, "tool": tool, "outcome": outcome}
    return REGISTRY.get_sample_value("metaserver_tool_calls_total", labels) or 0.0


@pytest.mark.integration
async def test_fast_calls_are_traced_counted_and_audited(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "bench")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    bob = Principal("bob", "call", "bench*")
    before_ok, before_error = _calls("bench", "add", "ok"), _calls("bench", "explode", "error")
    try:
        async with _served(settings, bob) as served:
            added = await served.call("bench_add", {"a": 2, "b": 3})
            generated = await served.call(
                "call_generated", {"server": "bench", "tool": "add", "arguments": {"a": 1}}
            )
            exploded = await served.call("bench_explode", {"message": "bad"})
            assert served.fast == ["bench_add", "call_generated", "bench_explode"]
    finally:
        tracing.use_provider(None)
    assert added.structured_content == {"result": 5}
    assert generated.is_error and "invalid arguments" in _text(generated)  # no child call
    assert exploded.is_error
    # Counted: the two calls that reached a child (the refused arguments never did).
    assert _calls("bench", "add", "ok") == before_ok + 1
    assert _calls("bench", "explode", "error") == before_error + 1
    spans = [s for s in exporter.get_finished_spans() if s.name == "call"]
    assert [(s.attributes or {}).get("metaserver.tool") for s in spans] == ["add", "explode"]
    assert (spans[1].attributes or {}).get("metaserver.outcome") == "error"
    rows = _rows(settings)
    assert [(r["who"], r["action"], r["target"], r["outcome"]) for r in rows] == [
        ("bob", "bench_add", "bench", "ok"),
        ("bob", "call_generated", "bench", "error"),
        ("bob", "bench_explode", "bench", "error"),
    ]


class _ReadOnlyTraceContext(TraceContextTextMapPropagator):
    """W3C trace context read from a request (as the server does) but written by no client:
    the test writes the ``traceparent`` of a span it knows."""

    def inject(self, *args: Any, **kwargs: Any) -> None:
        return None


@pytest.mark.integration
async def test_a_traced_call_on_the_fast_path_continues_the_clients_trace(
    tmp_path: Path,
) -> None:
    propagate.set_global_textmap(_ReadOnlyTraceContext())  # restored by _untraced_client
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "bench")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    try:
        async with _served(settings, None) as served:
            with provider.get_tracer("client").start_as_current_span("client") as client:
                meta: dict[str, Any] = {}
                TraceContextTextMapPropagator().inject(meta)  # W3C traceparent (SEP-414)
                added = await served.call("bench_add", {"a": 2, "b": 3}, meta=meta)
            untraced = await served.call("bench_add", {"a": 1, "b": 1})
            assert served.fast == ["bench_add", "bench_add"]  # both on the fast path
    finally:
        tracing.use_provider(None)
    assert added.structured_content == {"result": 5} and not untraced.is_error
    traced, other = [s for s in exporter.get_finished_spans() if s.name == "call"]
    assert traced.parent is not None and traced.parent.is_remote  # the client's span
    assert traced.parent.span_id == client.get_span_context().span_id
    assert traced.context.trace_id == client.get_span_context().trace_id
    assert other.parent is None or other.context.trace_id != traced.context.trace_id


@pytest.mark.integration
async def test_serve_audits_fast_calls_as_full_ones(tmp_path: Path) -> None:
    """``metaserver serve`` on stdio, a raw JSON-RPC client, and ``metaserver audit``."""
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "bench")
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(settings.home)
    process = await asyncio.create_subprocess_exec(
        METASERVER, "serve", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    sent = 0

    async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal sent
        assert process.stdin is not None and process.stdout is not None
        sent += 1
        line = {"jsonrpc": "2.0", "id": sent, "method": method, "params": params}
        process.stdin.write(json.dumps(line).encode() + b"\n")
        await process.stdin.drain()
        while True:
            answer: dict[str, Any] = json.loads(
                await asyncio.wait_for(process.stdout.readline(), 60)
            )
            if answer.get("id") == sent:
                return answer

    calls = [
        ("bench_add", {"a": 2, "b": 3}),
        ("call_generated", {"server": "bench", "tool": "add", "arguments": {"a": 1, "b": 1}}),
        ("bench_add", {"a": "two"}),
    ]
    try:
        hello = {"name": "raw", "version": "0"}
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": hello}
        await request("initialize", init)
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for name, arguments in calls:
            # Plain params: the fast path (test_fast_calls); with more _meta: FastMCP's.
            await request("tools/call", {"name": name, "arguments": arguments})
            await request("tools/call", {"name": name, "arguments": arguments, "_meta": {"k": 1}})
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
    audit = await asyncio.create_subprocess_exec(
        METASERVER, "audit", "--json", stdout=asyncio.subprocess.PIPE, env=env
    )
    out, _ = await audit.communicate()
    assert audit.returncode == 0
    rows = [r for r in json.loads(out) if r["action"] in {"bench_add", "call_generated"}]
    assert [(r["who"], r["action"], r["outcome"]) for r in rows] == [
        ("local", "bench_add", "ok"),
        ("local", "bench_add", "ok"),
        ("local", "call_generated", "ok"),
        ("local", "call_generated", "ok"),
        ("local", "bench_add", "error"),
        ("local", "bench_add", "error"),
    ]
    for fast, full in zip(rows[::2], rows[1::2], strict=True):
        assert _same_row(fast) == _same_row(full) and fast["detail"] == full["detail"]
