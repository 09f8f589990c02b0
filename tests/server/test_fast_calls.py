"""The stdio fast path of proxied calls: what it claims, and that its answers are the full
path's, through a real ``metaserver serve`` spoken to in raw JSON-RPC lines."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fake_children import fast_settings, register_fake
from mcp.shared.message import SessionMessage

from metaserver.server.eras import Era
from metaserver.server.fast_calls import FastCall, claimed

METASERVER = str(Path(sys.executable).with_name("metaserver"))


async def _answer(arguments: dict[str, Any]) -> mcp_types.CallToolResult:
    raise AssertionError("not called")


def _route(name: str, arguments: Any) -> FastCall | None:
    return _answer if name == "fast" else None


def _message(params: dict[str, Any] | None, method: str = "tools/call") -> SessionMessage:
    return SessionMessage(
        mcp_types.JSONRPCRequest(jsonrpc="2.0", id=7, method=method, params=params)
    )


_TRACED = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _legacy() -> Era:
    era = Era({"name": "metaserver"})
    era.saw("initialize", {"protocolVersion": "2025-06-18"})
    return era


def _modern() -> Era:
    era = Era({"name": "metaserver"})
    era.saw("server/discover", {"_meta": _ENVELOPE})
    return era


def test_only_plain_calls_of_routed_tools_are_claimed() -> None:
    era = _legacy()
    found = claimed(_message({"name": "fast", "arguments": {"a": 1}}), _route, era)
    assert found is not None and found.request_id == 7 and found.arguments == {"a": 1}
    assert found.version == "2025-06-18" and found.parent is None  # initialize's version
    assert claimed(_message({"name": "fast"}), _route, era) is not None
    assert claimed(_message({"name": "slow", "arguments": {}}), _route, era) is None
    # A progress token (FastMCP's client sends one with every call) and a trace context
    # (continued into the call's span) are no reason to leave the fast path; anything more
    # (a task, an extension's key, the other era's envelope) takes the full one.
    token = {"name": "fast", "arguments": {}, "_meta": {"progressToken": 3}}
    assert claimed(_message(token), _route, era) is not None
    traced = claimed(_message({"name": "fast", "_meta": _TRACED}), _route, era)
    assert traced is not None and traced.parent is not None
    bad_trace = claimed(_message({"name": "fast", "_meta": {"traceparent": "00-x"}}), _route, era)
    assert bad_trace is not None and bad_trace.parent is None  # as the SDK reads it: none
    assert claimed(_message({"name": "fast", "_meta": {"k": 1}}), _route, era) is None
    assert claimed(_message({"name": "fast", "_meta": _ENVELOPE}), _route, era) is None
    assert claimed(_message({"name": 3, "arguments": {}}), _route, era) is None
    assert claimed(_message({"name": "fast", "task": {}}), _route, era) is None
    assert claimed(_message({"name": "fast"}, method="tools/list"), _route, era) is None
    assert claimed(_message(None), _route, era) is None


def test_the_era_decides_what_is_claimed() -> None:
    """The SDK's client opens the 2026-07-28 era: its calls carry the envelope."""
    undecided = Era({"name": "metaserver"})
    assert claimed(_message({"name": "fast", "_meta": _ENVELOPE}), _route, undecided) is None
    assert claimed(_message({"name": "fast"}), _route, undecided) is None
    era = _modern()
    level = {**_ENVELOPE, "io.modelcontextprotocol/logLevel": "debug", "progressToken": 2}
    found = claimed(_message({"name": "fast", "_meta": {**level, **_TRACED}}), _route, era)
    assert found is not None and found.version == "2026-07-28" and found.parent is not None
    assert claimed(_message({"name": "fast"}), _route, era) is None  # no envelope: refused
    unknown = {**_ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    assert claimed(_message({"name": "fast", "_meta": unknown}), _route, era) is None
    extra = {**_ENVELOPE, "k": 1}
    assert claimed(_message({"name": "fast", "_meta": extra}), _route, era) is None
    # A first request with the envelope that is initialize opens the legacy era, as the SDK.
    enveloped_init = Era({"name": "metaserver"})
    enveloped_init.saw("initialize", {"protocolVersion": "2025-11-25", "_meta": _ENVELOPE})
    assert claimed(_message({"name": "fast"}), _route, enveloped_init) is not None


def test_a_modern_answer_is_stamped_and_a_legacy_one_is_not() -> None:
    result = {"content": [], "isError": False, "resultType": "complete"}
    modern = _modern().wire_result("2026-07-28", dict(result))
    assert modern["resultType"] == "complete"
    assert modern["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "metaserver"}
    legacy = _legacy().wire_result("2025-06-18", dict(result))
    assert "resultType" not in legacy and "_meta" not in legacy


class _Lines:
    """A ``metaserver serve`` process spoken to in JSON-RPC lines."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 1

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request_id, self.next_id = self.next_id, self.next_id + 1
        line = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        await self.process.stdin.drain()
        while True:
            answer = json.loads(await asyncio.wait_for(self.process.stdout.readline(), 60))
            if answer.get("id") == request_id:
                return answer


@pytest.mark.integration
@pytest.mark.parametrize("modern", [False, True], ids=["handshake era", "2026-07-28 era"])
async def test_fast_answers_are_the_full_paths(tmp_path: Path, modern: bool) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "bench")
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(settings.home)
    process = await asyncio.create_subprocess_exec(
        METASERVER,
        "serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        limit=2**24,
    )
    lines = _Lines(process)
    envelope = _ENVELOPE if modern else {}
    try:
        if modern:  # as the SDK's own client opens (and so FastMCP's)
            opened = await lines.request("server/discover", {"_meta": _ENVELOPE})
            assert opened["result"]["supportedVersions"] == ["2026-07-28"]
        else:
            await lines.request(
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            )
            assert process.stdin is not None
            process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        calls: list[tuple[str, dict[str, Any]]] = [
            ("bench_add", {"a": 2, "b": 3}),
            ("bench_add", {"a": "two"}),  # refused by the schema check
            ("bench_explode", {"message": "bad"}),  # the child's own error
            ("call_generated", {"server": "bench", "tool": "add", "arguments": {"a": 1, "b": 1}}),
            ("call_generated", {"server": "bench", "tool": "nope", "arguments": {}}),
            ("call_generated", {"server": "ghost", "tool": "add"}),
            ("call_generated", {"server": "bench", "tool": "add", "arguments": {"a": 1}}),
        ]
        for name, arguments in calls:
            fast = await lines.request(
                "tools/call",
                {"name": name, "arguments": arguments, "_meta": {**envelope, "progressToken": 1}},
            )
            # With more _meta the request takes FastMCP's dispatch: the reference answer.
            full = await lines.request(
                "tools/call", {"name": name, "arguments": arguments, "_meta": {**envelope, "k": 1}}
            )
            assert "result" in fast, fast
            assert fast["result"] == full["result"], (name, arguments)
            assert ("resultType" in fast["result"]) is modern
        if modern:
            return
        added = {"name": "bench_add", "arguments": {"a": 2, "b": 3}}
        first = await lines.request("tools/call", added)
        assert first["result"]["structuredContent"] == {"result": 5}
        wrong = {"name": "bench_add", "arguments": {"a": "x"}}
        refused = await lines.request("tools/call", wrong)
        assert refused["result"]["isError"] is True
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
