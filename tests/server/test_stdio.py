"""`metaserver serve` on stdio, as a client process talks to it: lines that are not JSON-RPC
messages get a JSON-RPC error answer with a null id, and the session goes on."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from serving import INITIALIZE

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))


class Session:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def answer(self, timeout: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        assert line, "the server closed stdout"
        message: dict[str, Any] = json.loads(line)
        return message


async def serve(home: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(home)
    return await asyncio.create_subprocess_exec(
        METASERVER,
        "serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        limit=1 << 20,
    )


async def test_lines_past_the_bounds_are_answered_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    """Issue 28: a request whose id is an object was taken for a notification and never
    answered, NaN was read, and a line of any length was held whole."""
    session = Session(await serve(tmp_path / "home"))
    try:
        await session.send(json.dumps(INITIALIZE))
        assert (await session.answer(timeout=180))["id"] == 1  # the start, on a loaded machine
        await session.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        refused = {
            "object id": ('{"jsonrpc": "2.0", "id": {}, "method": "ping"}', -32600, "id must"),
            "NaN": ('{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"x": NaN}}',
                    -32700, "NaN"),
            "long number": ('{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "ping"}',
                            -32700, "number longer than 1000"),
            "long line": ('{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": '
                          '{"name": "list_tools", "arguments": {"query": "'
                          + "q" * (9 * 1024 * 1024) + '"}}}', -32700, "longer than 8 MiB"),
        }  # fmt: skip
        for what, (line, code, says) in refused.items():
            await session.send(line)
            answer = await session.answer()
            assert answer["id"] is None and answer["error"]["code"] == code, (what, answer)
            assert says in answer["error"]["message"], (what, answer)
        await session.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
        assert await session.answer() == {"jsonrpc": "2.0", "id": 7, "result": {}}
    finally:
        assert session.process.stdin is not None
        session.process.stdin.close()
        await asyncio.wait_for(session.process.wait(), 20)
    assert session.process.returncode == 0


async def test_bad_lines_get_parse_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(tmp_path / "home")
    process = await asyncio.create_subprocess_exec(
        METASERVER,
        "serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        limit=1 << 20,
    )
    session = Session(process)
    try:
        bad = {
            "truncated": json.dumps(INITIALIZE)[:40],
            "nested list": "[" * 10_000 + "]" * 10_000,
            "nested object": '{"a":' * 10_000 + "1" + "}" * 10_000,
        }
        for what, line in bad.items():
            await session.send(line)
            answer = await session.answer()
            assert answer["jsonrpc"] == "2.0" and answer["id"] is None, what
            assert answer["error"]["code"] == -32700, (what, answer)
        assert "nested too deeply" in answer["error"]["message"]

        await session.send('{"hello": "world"}')  # JSON, but no JSON-RPC message
        answer = await session.answer()
        assert answer["id"] is None and answer["error"]["code"] == -32600

        await session.send("")  # a stray newline is answered by nothing
        await session.send(json.dumps(INITIALIZE))
        answer = await session.answer()
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "metaserver"

        await session.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        await session.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/li')
        assert (await session.answer())["error"]["code"] == -32700
        await session.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        answer = await session.answer()
        assert answer["id"] == 3
        assert "convert_repo" in {tool["name"] for tool in answer["result"]["tools"]}
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 20)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 0


async def test_a_file_as_stdin_is_served_by_the_sdks_transport(tmp_path: Path) -> None:
    """No pipe to poll (stdin a regular file): the SDK's threaded reader serves it, with the
    same answers to bad lines."""
    requests = tmp_path / "requests.jsonl"
    requests.write_text(json.dumps(INITIALIZE) + "\n" + '{"jsonrpc": "2.0", "id": {}}\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env["METASERVER_HOME"] = str(tmp_path / "home")
    answers = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            METASERVER, "serve", stdin=stdin, stdout=stdout, stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )  # fmt: skip
        assert await asyncio.wait_for(process.wait(), 180) == 0
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    by_id = {str(line.get("id")): line for line in lines}
    assert by_id["1"]["result"]["serverInfo"]["name"] == "metaserver"
    assert by_id["None"]["error"]["code"] == -32600
