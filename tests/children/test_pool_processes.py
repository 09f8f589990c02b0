"""A removal in one process while another process's live child runs from the files (issue 28).

Two processes of one home: ``metaserver serve`` (driven by a real MCP client over stdio)
holds a live child and calls it; ``metaserver remove`` unregisters the server meanwhile.
The call in flight finishes (its files are leased, so the removal leaves them), the next
call is refused with "was removed", and the files go once the child has stopped.
Refused rather than served: the registry is what exists, and its owner asked for the
server to go; a call that started before the removal is the only one that still runs.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from removal_fixtures import home_env, register_lazy

from metaserver.children.pool import ChildPool
from metaserver.registry import Registry
from metaserver.registry.files import discard_files
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def _text(result: object) -> str:
    content = getattr(result, "content", [])
    return " ".join(getattr(block, "text", "") for block in content)


async def _remove(home: Path, name: str) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(
        subprocess.run,
        [METASERVER, "remove", name],
        capture_output=True,
        text=True,
        env=home_env(home),
        timeout=120,
    )


async def test_a_removal_elsewhere_lets_the_call_finish_and_the_files_go_after(
    tmp_path: Path,
) -> None:
    settings = Settings(home=tmp_path / "home")
    record = register_lazy(settings)
    transport = StdioTransport(command=METASERVER, args=["serve"], env=home_env(settings.home))
    async with Client(transport, timeout=120) as client:
        warm = await client.call_tool(
            "call_generated", {"server": "lazy", "tool": "ping"}, raise_on_error=False
        )
        assert not warm.is_error and "pong" in _text(warm), _text(warm)

        work = record.output_dir / "work"
        in_flight = asyncio.create_task(
            client.call_tool(
                "call_generated", {"server": "lazy", "tool": "late_import"}, raise_on_error=False
            )
        )
        deadline = time.monotonic() + 60
        while not (work / "started").exists():
            assert time.monotonic() < deadline and not in_flight.done(), "the call never ran"
            await asyncio.sleep(0.1)
        removed = await _remove(settings.home, "lazy")
        assert removed.returncode == 0, removed.stderr
        assert not in_flight.done(), "the call ended before its word"
        assert Registry(settings.registry_path).versions("lazy") == []
        # Unregistered at once, the files kept: the other process's child runs from them.
        assert (record.output_dir / "late_module.py").is_file()

        (work / "go").write_text("")
        finished = await in_flight
        assert not finished.is_error, _text(finished)
        assert "read after the pause" in _text(finished)

        refused = await client.call_tool(
            "call_generated", {"server": "lazy", "tool": "ping"}, raise_on_error=False
        )
        assert refused.is_error and "was removed" in _text(refused), _text(refused)

        # The serve process stops the removed version's child once idle, then deletes the
        # files it held (the reaper looks every few seconds).
        deadline = time.monotonic() + 60
        while record.output_dir.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        assert not record.output_dir.exists(), "the files stayed after the child stopped"
        again = await client.call_tool(
            "call_generated", {"server": "lazy", "tool": "ping"}, raise_on_error=False
        )
        assert again.is_error and "was removed" in _text(again), _text(again)
    leases = settings.home / "locks" / "versions"
    assert not any(leases.glob(f"{record.output_dir.name}.lock")), "its lease file stayed"


_HOLD = """
import sys, time
from pathlib import Path
from metaserver.registry import Registry
from metaserver.registry.files import hold_files
from metaserver.settings import Settings
settings = Settings(home=Path(sys.argv[1]))
registry = Registry(settings.registry_path)
lease = hold_files(settings, registry.resolve("lazy"), registry)
print("held", flush=True)
time.sleep(600)
"""


def test_files_a_killed_process_held_go_with_the_next_sweep(tmp_path: Path) -> None:
    # A serve process killed while its child ran: the kernel ends its lease, and whoever
    # sweeps next (here a removal of another server) deletes what the removal had left.
    settings = Settings(home=tmp_path / "home")
    record = register_lazy(settings)
    register_lazy(settings, "other", "4e5f6a7b")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(settings.home)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        removed = subprocess.run(
            [METASERVER, "remove", "lazy"],
            capture_output=True,
            text=True,
            env=home_env(settings.home),
            timeout=120,
        )
        assert removed.returncode == 0, removed.stderr
        assert record.output_dir.is_dir(), "deleted while another process held its lease"
    finally:
        holder.kill()
        holder.wait()
    removed = subprocess.run(
        [METASERVER, "remove", "other"],
        capture_output=True,
        text=True,
        env=home_env(settings.home),
        timeout=120,
    )
    assert removed.returncode == 0, removed.stderr
    assert not record.output_dir.exists()
    assert list(settings.servers_dir.iterdir()) == []


async def test_the_pool_retires_a_child_whose_version_went_once_its_call_ends(
    tmp_path: Path,
) -> None:
    # Another process's removal, as this pool sees it: the rows go, the files stay leased.
    settings = fast_settings(tmp_path / "home")
    registry = Registry(settings.registry_path)
    record = register_fake(settings, "calc", "5c6d7e8f")
    pool = ChildPool(settings, registry=registry)
    try:
        first = await pool.call(record, "add", {"a": 1, "b": 2})
        assert not first.is_error
        napping = asyncio.create_task(pool.call(record, "nap", {"seconds": 2}))
        await asyncio.sleep(0.5)
        registry.remove("calc")
        assert discard_files(settings, [record], registry) == []  # leased: kept
        assert await pool.retire_removed() == []  # a call in flight: not stopped yet
        refused = await pool.call(record, "add", {"a": 1, "b": 2})
        assert refused.is_error and "was removed" in str(refused.content), refused
        assert not (await napping).is_error
        assert await pool.retire_removed() == [record.ref]
        assert pool.live() == [] and not record.output_dir.exists()
        assert pool.served("calc")  # a later call naming it is told it was removed
        again = await pool.call(record, "add", {"a": 1, "b": 2})
        assert again.is_error and "was removed" in str(again.content), again
    finally:
        await pool.close()


async def test_a_pool_that_closes_deletes_the_removed_files_its_child_held(
    tmp_path: Path,
) -> None:
    # The soak (issue 28): a removal left the files a serve process's live child ran from;
    # that serve ended before its reaper's next look (close cancels it), and the sweep of
    # the serve started meanwhile found them still leased: two orphan directories.
    settings = fast_settings(tmp_path / "home")
    registry = Registry(settings.registry_path)
    record = register_fake(settings, "calc", "5c6d7e8f")
    kept = register_fake(settings, "other", "6d7e8f90")
    pool = ChildPool(settings, registry=registry)
    try:
        assert not (await pool.call(record, "add", {"a": 1, "b": 2})).is_error
        assert not (await pool.call(kept, "add", {"a": 1, "b": 2})).is_error
        registry.remove("calc")
        assert discard_files(settings, [record], registry) == []  # leased: kept
    finally:
        await pool.close()
    assert not record.output_dir.exists(), "the closed pool left the removed version's files"
    assert kept.output_dir.is_dir(), "a registered version's files went"
    assert pool.live() == []
