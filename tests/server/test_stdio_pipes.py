"""The meta-server on real pipes, read and written by its event loop: lines within bounds,
and many fast answers at once, each a whole line, every claimed call answered."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fake_children import fast_settings, register_fake

from metaserver.children.bad_lines import TOO_LONG
from metaserver.server.app import build_served
from metaserver.server.fast_calls import FastCall
from metaserver.server.stdio_pipes import bounded_line, serve_pipes

_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def test_lines_are_bounded_and_the_last_needs_no_newline() -> None:
    reader = asyncio.StreamReader(limit=16)
    long = b"x" * 100
    reader.feed_data(b"short\n" + long + b"\n" + b"y" * 40 + b"\nlast")
    reader.feed_eof()
    assert await bounded_line(reader, limit=50) == b"short\n"
    assert await bounded_line(reader, limit=50) == TOO_LONG  # read to its end, dropped
    assert await bounded_line(reader, limit=50) == b"y" * 40 + b"\n"
    assert await bounded_line(reader, limit=50) == b"last"
    assert await bounded_line(reader, limit=50) == b""


class _Client:
    """The test's ends of the two pipes: requests written, answers read by id."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, message: dict[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")
        await self.writer.drain()

    async def line(self) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.reader.readline(), 120)
        assert raw.endswith(b"\n"), raw[-200:]
        answer: dict[str, Any] = json.loads(raw)  # a torn or mixed line fails here
        return answer

    async def request(self, request_id: int, method: str, params: dict[str, Any]) -> Any:
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            answer = await self.line()
            if answer.get("id") == request_id:
                return answer


@contextlib.asynccontextmanager
async def _piped(home: Path, taken: list[str]) -> AsyncIterator[_Client]:
    """The meta-server of ``home`` served by :func:`serve_pipes` on two OS pipes."""
    settings = fast_settings(home)
    register_fake(settings, "bench")
    mcp, route = build_served(settings)

    def watched(name: str, arguments: Any) -> FastCall | None:
        call = route(name, arguments)
        if call is not None:
            taken.append(name)
        return call

    requests_read, requests_written = os.pipe()
    answers_read, answers_written = os.pipe()
    source, sink = os.fdopen(requests_read, "rb"), os.fdopen(answers_written, "wb")

    async def serve() -> None:
        async with mcp._lifespan_manager():
            await serve_pipes(mcp, watched, source, sink)

    serving = asyncio.create_task(serve())
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(answers_read, "rb")
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(requests_written, "wb")
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    try:
        yield _Client(reader, writer)
    finally:
        write_transport.close()  # the server's stdin ends: it stops
        await asyncio.wait_for(serving, 60)
        read_transport.close()
        source.close()
        sink.close()


@pytest.mark.integration
async def test_concurrent_fast_answers_are_whole_lines(tmp_path: Path) -> None:
    taken: list[str] = []
    async with _piped(tmp_path / "home", taken) as client:
        opened = await client.request(1, "server/discover", {"_meta": _ENVELOPE})
        assert opened["result"]["supportedVersions"] == ["2026-07-28"]
        # Answers far longer than a pipe's buffer, sent while others are being written.
        text = " ".join(f"word{i}" for i in range(6000))
        expected: dict[int, Any] = {}
        for request_id in range(2, 62):
            if request_id % 3:
                name, arguments, value = "bench_split_words", {"text": text}, text.split()
            else:
                name, arguments, value = "bench_add", {"a": request_id, "b": 1}, request_id + 1
            expected[request_id] = value
            params = {"name": name, "arguments": arguments, "_meta": _ENVELOPE}
            await client.send(
                {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            )
        # FastMCP's own answers go out on the same pipe meanwhile.
        listing = {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/list",
            "params": {"_meta": _ENVELOPE},
        }
        await client.send(listing)
        answered: dict[int, Any] = {}
        while len(answered) < len(expected) + 1:
            answer = await client.line()
            answered[answer["id"]] = answer.get("result", answer)
        assert "bench_add" in {tool["name"] for tool in answered.pop(99)["tools"]}
        assert set(answered) == set(expected)
        for request_id, result in answered.items():
            assert result["structuredContent"] == {"result": expected[request_id]}, request_id
            assert result["resultType"] == "complete"
    assert len(taken) == len(expected)  # every call took the fast path


@pytest.mark.integration
async def test_bad_lines_are_answered_and_the_session_goes_on(tmp_path: Path) -> None:
    async with _piped(tmp_path / "home", []) as client:
        client.writer.write(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/li\n\n')
        broken = await client.line()
        assert broken["id"] is None and broken["error"]["code"] == -32700
        client.writer.write(b'{"jsonrpc": "2.0", "id": {}, "method": "ping"}\n')
        assert (await client.line())["error"]["code"] == -32600
        listed = await client.request(3, "tools/list", {"_meta": _ENVELOPE})
        assert "call_generated" in {tool["name"] for tool in listed["result"]["tools"]}
