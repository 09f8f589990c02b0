"""ChildPool against real children: the fake FastMCP server, started through the sandbox."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fake_children import (
    fake_record,
    fast_settings,
    kill_and_wait,
    register_fake,
    server_pids,
)

from metaserver.children.pool import ChildPool
from metaserver.children.tool_timeouts import tool_timeout
from metaserver.registry import Registry
from metaserver.settings import Settings, TimeoutSettings

pytestmark = pytest.mark.integration


def _text(result: mcp_types.CallToolResult) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


def _value(result: mcp_types.CallToolResult) -> Any:
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    return result.structured_content["result"]


async def _eventually(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


@pytest.fixture
async def pool_for(tmp_path: Path) -> AsyncIterator[Any]:
    pools: list[ChildPool] = []

    def make(**overrides: Any) -> tuple[ChildPool, Settings]:
        settings = fast_settings(tmp_path / "home", **overrides)
        pool = ChildPool(settings)
        pools.append(pool)
        return pool, settings

    yield make
    for pool in pools:
        await pool.close()


async def test_calls_reuse_one_child_and_errors_are_results(pool_for: Any) -> None:
    pool, settings = pool_for()
    record = fake_record(settings, "alpha")
    assert _value(await pool.call(record, "add", {"a": 2, "b": 3})) == 5
    assert _value(await pool.call(record, "split_words", {"text": "a b c"})) == ["a", "b", "c"]
    # The child's own id, not its pid: under bwrap it runs in a pid namespace of its own.
    first = _value(await pool.call(record, "instance", {}))
    assert _value(await pool.call(record, "instance", {})) == first
    assert len(server_pids(record.output_dir)) == 1

    failed = await pool.call(record, "explode", {"message": "bad"})
    assert failed.is_error and "boom: bad" in _text(failed)
    unknown = await pool.call(record, "nope", {})
    assert unknown.is_error and "nope" in _text(unknown)
    # A tool error does not cost the child.
    assert _value(await pool.call(record, "instance", {})) == first
    assert pool.live() == ["alpha"]

    await pool.close()
    assert pool.live() == []
    assert server_pids(record.output_dir) == []
    # A closed pool is still usable.
    assert _value(await pool.call(record, "add", {"a": 1, "b": 1})) == 2


async def test_idle_child_is_stopped(pool_for: Any) -> None:
    pool, settings = pool_for(child_idle_seconds=0.5)
    record = fake_record(settings, "alpha")
    assert _value(await pool.call(record, "add", {"a": 1, "b": 2})) == 3
    assert pool.live() == ["alpha"]
    # The background reaper, not a call, stops it.
    await _eventually(lambda: not pool.live() and not server_pids(record.output_dir))
    assert _value(await pool.call(record, "add", {"a": 2, "b": 2})) == 4


async def test_least_recently_used_child_is_evicted(pool_for: Any) -> None:
    pool, settings = pool_for(max_live_children=2)
    a, b, c = (fake_record(settings, name) for name in ("a", "b", "c"))
    await asyncio.gather(pool.call(a, "pid", {}), pool.call(b, "pid", {}))
    assert sorted(pool.live()) == ["a", "b"]
    await pool.call(a, "pid", {})  # a is now the most recently used
    assert pool.live() == ["b", "a"]
    assert _value(await pool.call(c, "add", {"a": 1, "b": 1})) == 2
    assert pool.live() == ["a", "c"]
    assert server_pids(b.output_dir) == []
    assert len(server_pids(a.output_dir)) == 1


async def test_killed_child_restarts_on_next_call(pool_for: Any) -> None:
    pool, settings = pool_for()
    record = fake_record(settings, "alpha")
    first = _value(await pool.call(record, "instance", {}))
    assert pool.is_alive("alpha")
    kill_and_wait(*server_pids(record.output_dir))
    await _eventually(lambda: not pool.is_alive("alpha"))  # the closed pipes are noticed
    second = _value(await pool.call(record, "instance", {}))
    assert second != first
    assert _value(await pool.call(record, "add", {"a": 3, "b": 4})) == 7


async def test_child_killed_during_a_call_gives_an_error_then_recovers(pool_for: Any) -> None:
    pool, settings = pool_for()
    record = fake_record(settings, "alpha")
    first = _value(await pool.call(record, "instance", {}))
    slow = asyncio.create_task(pool.call(record, "nap", {"seconds": 5}))
    await asyncio.sleep(0.3)
    kill_and_wait(*server_pids(record.output_dir))
    result = await asyncio.wait_for(slow, 5)
    assert result.is_error
    assert _value(await pool.call(record, "instance", {})) != first


async def test_slow_tool_does_not_block_other_calls(pool_for: Any) -> None:
    pool, settings = pool_for()
    a, b = fake_record(settings, "a"), fake_record(settings, "b")
    await asyncio.gather(pool.call(a, "pid", {}), pool.call(b, "pid", {}))
    slow = asyncio.create_task(pool.call(a, "nap", {"seconds": 2}))
    await asyncio.sleep(0.2)
    assert _value(await pool.call(b, "add", {"a": 1, "b": 2})) == 3
    assert _value(await pool.call(a, "add", {"a": 2, "b": 2})) == 4  # same child, shared
    assert not slow.done()  # both answered while the slow call was still running
    assert _value(await slow) == 2


async def test_slow_start_does_not_block_calls_to_a_running_child(pool_for: Any) -> None:
    pool, settings = pool_for()
    a = fake_record(settings, "a")
    slow = fake_record(settings, "slow")
    script = slow.output_dir / "server.py"
    script.write_text("import time\ntime.sleep(2)\n" + script.read_text())
    await pool.call(a, "pid", {})
    starting = asyncio.create_task(pool.call(slow, "add", {"a": 1, "b": 1}))
    await asyncio.sleep(0.3)
    assert _value(await pool.call(a, "add", {"a": 1, "b": 2})) == 3
    assert not starting.done()  # answered while the other server was still starting
    assert _value(await starting) == 2


async def test_timeout_is_an_error_and_the_child_is_replaced(pool_for: Any) -> None:
    # 3 s, not 1: the calls around the nap must not time out themselves on a loaded machine
    # (at load 9 a fresh child's first answer took over a second).
    pool, settings = pool_for(timeouts={"server_start": 30, "tool_call": 3})
    record = fake_record(settings, "alpha")
    first = _value(await pool.call(record, "instance", {}))
    started = time.monotonic()
    result = await pool.call(record, "nap", {"seconds": 60})
    assert result.is_error and "timed out" in _text(result)
    assert time.monotonic() - started < 30  # the 3 s limit, not the 60 s nap
    assert _value(await pool.call(record, "instance", {})) != first


async def test_a_tool_validated_with_a_longer_limit_gets_it(pool_for: Any) -> None:
    # Validation gave "nap" 20 s and wrote it into the server's tools.json (repair/rounds.py).
    pool, settings = pool_for(timeouts={"server_start": 30, "tool_call": 2})
    record = fake_record(settings, "alpha", version="v1")
    manifest = {"tools": [{"name": "nap", "timeout": 20.0}, {"name": "add", "timeout": None}]}
    (record.output_dir / "tools.json").write_text(json.dumps(manifest))
    assert tool_timeout(record, "nap", 2) == 20.0
    assert tool_timeout(record, "add", 2) == 2  # no limit of its own: the default
    assert tool_timeout(record, "nap", 30) == 30  # never shorter than the default
    slept = await pool.call(record, "nap", {"seconds": 4})
    assert not slept.is_error, _text(slept)
    # Without that limit, the same call times out at the default.
    other = fake_record(settings, "beta", version="v1")
    result = await pool.call(other, "nap", {"seconds": 4})
    assert result.is_error and "timed out after 2s" in _text(result)


async def test_concurrent_first_calls_start_one_child(pool_for: Any) -> None:
    pool, settings = pool_for()
    record = fake_record(settings, "alpha")
    ids = await asyncio.gather(*(pool.call(record, "instance", {}) for _ in range(5)))
    assert len({_value(result) for result in ids}) == 1
    assert len(server_pids(record.output_dir)) == 1


async def test_broken_server_and_oversized_result_are_error_results(pool_for: Any) -> None:
    pool, settings = pool_for(result_max_bytes=1024)
    broken = fake_record(settings, "broken")
    (broken.output_dir / "server.py").write_text("raise SystemExit(3)\n")
    result = await pool.call(broken, "add", {"a": 1, "b": 2})
    assert result.is_error and "could not start" in _text(result)
    assert pool.live() == []

    record = fake_record(settings, "alpha")
    big = await pool.call(record, "split_words", {"text": "word " * 500})
    assert big.is_error and "cap" in _text(big)
    assert _value(await pool.call(record, "add", {"a": 1, "b": 2})) == 3


async def test_re_registered_server_gets_a_new_child(pool_for: Any) -> None:
    pool, settings = pool_for()
    record = fake_record(settings, "alpha")
    first = _value(await pool.call(record, "instance", {}))
    newer = record.model_copy(update={"created_at": record.created_at + 1})
    assert _value(await pool.call(newer, "instance", {})) != first
    assert await pool.stop("alpha") is True
    assert await pool.stop("alpha") is False
    assert server_pids(record.output_dir) == []


async def test_versions_of_one_server_have_children_of_their_own(pool_for: Any) -> None:
    pool, settings = pool_for()
    old = fake_record(settings, "alpha", version="old", commit="a" * 40)
    new = fake_record(settings, "alpha", version="new", commit="b" * 40)
    ids = await asyncio.gather(pool.call(old, "instance", {}), pool.call(new, "instance", {}))
    assert len({_value(result) for result in ids}) == 2
    assert sorted(pool.live()) == ["alpha@new", "alpha@old"]
    assert await pool.retain("alpha", {"new"}) == ["alpha@old"]
    assert pool.live() == ["alpha@new"] and server_pids(old.output_dir) == []
    assert _value(await pool.call(new, "instance", {})) == _value(ids[1])
    assert await pool.stop("alpha") is True
    assert pool.live() == []


async def test_retain_stops_a_child_whose_files_another_process_replaced(
    tmp_path: Path,
) -> None:
    # Issue 28: a re-conversion in another process keeps the version id and registers new
    # files; the child of the old files keeps its version id, so only the registry's paths
    # say that its files are no longer a registered version's.
    settings = fast_settings(tmp_path / "home")
    registry = Registry(settings.registry_path)
    old = register_fake(settings, "alpha", version="v1")
    pool = ChildPool(settings, registry=registry)
    try:
        first = _value(await pool.call(old, "instance", {}))
        assert pool.live() == ["alpha@v1"] and server_pids(old.output_dir) != []
        replacing = settings.servers_dir / "alpha-v1-again"
        shutil.copytree(old.output_dir, replacing)
        new = registry.register(old.model_copy(update={"output_dir": replacing})).record
        assert new.version_id == "v1" and registry.paths() >= {replacing}
        assert old.output_dir not in registry.paths()

        assert await pool.retain("alpha", {"v1"}) == ["alpha@v1"]
        assert server_pids(old.output_dir) == []
        assert not old.output_dir.exists()  # its files went with its child
        # The version's new files serve the next call, in a child of their own.
        assert _value(await pool.call(new, "instance", {})) != first
        assert server_pids(replacing) != []
        assert await pool.retain("alpha", {"v1"}) == []  # registered files: kept running
    finally:
        await pool.close()


async def test_busy_children_are_never_evicted_to_make_room(pool_for: Any) -> None:
    # Issue 28: with two slots and four busy servers, evictions killed calls in flight
    # ("stopped unexpectedly"); now a call waits for an idle child instead. Four servers take
    # turns in two slots, a start per turn, at the default limits (a start's and a call's):
    # waiting calls take slots in the order they came, so each waits for the few servers
    # ahead of it (17 were refused as busy on a loaded machine while any waiter could take
    # a freed slot, and one whose server had started kept waiting for a slot of its own).
    defaults = TimeoutSettings()
    limits = {"server_start": defaults.server_start, "tool_call": defaults.tool_call}
    pool, settings = pool_for(max_live_children=2, timeouts=limits)
    records = [fake_record(settings, name) for name in ("w", "x", "y", "z")]
    gate = asyncio.Semaphore(10)

    async def one(index: int) -> str | None:
        async with gate:
            record = records[index % len(records)]
            result = await pool.call(record, "nap", {"seconds": 0.02})
            return _text(result) if result.is_error else None

    errors = [e for e in await asyncio.gather(*(one(i) for i in range(200))) if e]
    assert errors == []
    assert len(pool.live()) <= 2


async def test_waiting_calls_take_slots_in_the_order_they_came(pool_for: Any) -> None:
    # One slot, busy with a; then b, c and b again wait. b goes first and its second call
    # joins b's child (it waited for a slot of its own before, behind c), then c.
    pool, settings = pool_for(max_live_children=1)
    a, b, c = (fake_record(settings, name) for name in ("a", "b", "c"))
    assert _value(await pool.call(a, "add", {"a": 1, "b": 1})) == 2
    finished: list[str] = []

    async def call(record: Any, label: str, seconds: float) -> None:
        _value(await pool.call(record, "nap", {"seconds": seconds}))
        finished.append(label)

    busy = asyncio.create_task(call(a, "a", 1.0))
    await asyncio.sleep(0.2)
    waiting = [asyncio.create_task(call(b, "b1", 0.5))]
    await asyncio.sleep(0.2)
    waiting.append(asyncio.create_task(call(c, "c1", 0.1)))
    await asyncio.sleep(0.2)
    waiting.append(asyncio.create_task(call(b, "b2", 0.1)))
    await asyncio.gather(busy, *waiting)
    assert finished == ["a", "b2", "b1", "c1"]
    assert pool.live() == ["c"]


async def test_a_call_waits_for_a_busy_slot_and_is_refused_past_its_limit(
    pool_for: Any,
) -> None:
    # A call waits for a slot as long as a start and its own call may take (45 + 2 s here; a
    # start took up to 40 s on a loaded machine).
    limits = {"server_start": 45, "tool_call": 2}
    pool, settings = pool_for(max_live_children=1, timeouts=limits)
    a, b = fake_record(settings, "a"), fake_record(settings, "b", version="v1")
    (b.output_dir / "tools.json").write_text(
        json.dumps({"tools": [{"name": "nap", "timeout": 120}]})
    )
    assert _value(await pool.call(a, "add", {"a": 1, "b": 1})) == 2
    napping = asyncio.create_task(pool.call(a, "nap", {"seconds": 1.0}))
    await asyncio.sleep(0.3)
    # b waits for a's call to end, then takes its slot: a's call is not cut short.
    assert _value(await pool.call(b, "add", {"a": 2, "b": 2})) == 4
    assert _value(await napping) == 1.0
    assert pool.live() == ["b@v1"]

    # A call that outlives the waiting call's budget: refused, and the busy call is whole.
    long_nap = asyncio.create_task(pool.call(b, "nap", {"seconds": 55}))
    await asyncio.sleep(0.3)
    started = time.monotonic()
    refused = await pool.call(a, "add", {"a": 1, "b": 2})
    assert refused.is_error and "too many servers busy" in _text(refused)
    assert time.monotonic() - started >= 46
    assert _value(await long_nap) == 55
