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


def test_only_plain_calls_of_routed_tools_are_claimed() -> None:
    found = claimed(_message({"name": "fast", "arguments": {"a": 1}}), _route)
    assert found is not None and found[0] == 7 and found[2] == {"a": 1}
    assert claimed(_message({"name": "fast"}), _route) is not None
    assert claimed(_message({"name": "slow", "arguments": {}}), _route) is None
    # A progress token (FastMCP's client sends one with every call) is no reason to leave
    # the fast path; anything more (a task, a protocol version, a trace) takes the full one.
    token = {"name": "fast", "arguments": {}, "_meta": {"progressToken": 3}}
    assert claimed(_message(token), _route) is not None
    traced = {"name": "fast", "arguments": {}, "_meta": {"traceparent": "00-x"}}
    assert claimed(_message(traced), _route) is None
    assert claimed(_message({"name": 3, "arguments": {}}), _route) is None
    assert claimed(_message({"name": "fast", "task": {}}), _route) is None
    assert claimed(_message({"name": "fast"}, method="tools/list"), _route) is None
    assert claimed(_message(None), _route) is None


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
async def test_fast_answers_are_the_full_paths(tmp_path: Path) -> None:
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
    try:
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
                "tools/call", {"name": name, "arguments": arguments, "_meta": {"progressToken": 1}}
            )
            # With _meta the request takes FastMCP's dispatch: the reference answer.
            full = await lines.request(
                "tools/call", {"name": name, "arguments": arguments, "_meta": {"k": 1}}
            )
            assert "result" in fast, fast
            assert fast["result"] == full["result"], (name, arguments)
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
