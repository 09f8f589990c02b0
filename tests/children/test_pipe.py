"""PipeSession against a real child: the fake FastMCP server, started through the sandbox."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from fake_children import fake_record, fast_settings, server_pids
from mcp.shared.exceptions import MCPError

from metaserver.children.launch import server_command
from metaserver.children.pipe import OversizedAnswer, PipeSession
from metaserver.registry.records import ServerRecord
from metaserver.sandbox import Command, get_sandbox

pytestmark = pytest.mark.integration


def _command(record: ServerRecord, tmp_path: Path) -> Command:
    settings = fast_settings(tmp_path / "home")
    return server_command(get_sandbox(settings.sandbox), record.python_path, record.output_dir, 60)


@pytest.fixture
def record(tmp_path: Path) -> ServerRecord:
    return fake_record(fast_settings(tmp_path / "home"), "alpha")


async def test_concurrent_calls_get_their_own_answers(record: ServerRecord, tmp_path: Path) -> None:
    session = await PipeSession.start(_command(record, tmp_path), tmp_path / "log", 10_000, 30)
    try:
        slow = asyncio.create_task(
            session.request("tools/call", {"name": "nap", "arguments": {"seconds": 0.5}}, 10)
        )
        sums = await asyncio.gather(
            *(
                session.request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}}, 10)
                for i in range(5)
            )
        )
        assert [raw["structuredContent"]["result"] for raw, _ in sums] == [1, 2, 3, 4, 5]
        assert all(size > 0 for _, size in sums)
        napped, _ = await slow
        assert napped["structuredContent"]["result"] == 0.5
        # A tool's own error is a result; a request the server does not know is an MCPError.
        failed, _ = await session.request(
            "tools/call", {"name": "explode", "arguments": {"message": "x"}}, 10
        )
        assert failed["isError"] is True
        with pytest.raises(MCPError):
            await session.request("no/such/method", {}, 10)
        assert not session.is_dead()
    finally:
        await session.close()
    assert session.is_dead()
    assert server_pids(record.output_dir) == []
    with pytest.raises(ConnectionError):
        await session.request("tools/list", {}, 10)


async def test_oversized_answer_and_timeout_leave_the_session_usable(
    record: ServerRecord, tmp_path: Path
) -> None:
    session = await PipeSession.start(_command(record, tmp_path), tmp_path / "log", 1024, 30)
    try:
        text = "word " * 100_000  # an answer of ~700 kB: read in chunks and dropped
        with pytest.raises(OversizedAnswer) as caught:
            await session.request(
                "tools/call", {"name": "split_words", "arguments": {"text": text}}, 30
            )
        assert caught.value.size > 64 * 1024 + 1024
        with pytest.raises(TimeoutError):
            await session.request("tools/call", {"name": "nap", "arguments": {"seconds": 5}}, 0.3)
        raw, _ = await session.request(
            "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, 10
        )
        assert raw["structuredContent"]["result"] == 5
    finally:
        await session.close()


async def test_a_child_that_exits_fails_the_start(tmp_path: Path) -> None:
    command = Command(
        argv=[sys.executable, "-c", "raise SystemExit(3)"], env={}, cwd=tmp_path / "work"
    )
    with pytest.raises(ConnectionError):
        await PipeSession.start(command, tmp_path / "log", 1024, 30)
