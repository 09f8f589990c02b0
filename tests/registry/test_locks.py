"""The home's locks between processes: real processes, real flock."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from metaserver.registry.locks import (
    ConversionLease,
    FilesGoneError,
    FilesLease,
    conversion_lock,
    deleting,
    is_live,
    server_lock,
)
from metaserver.settings import Settings

# Holds a lock of the home given as argv[1] until its stdin closes; says "held" first.
_HOLDER = """
import sys
from pathlib import Path
from metaserver.registry.locks import ConversionLease, server_lock
from metaserver.settings import Settings
settings = Settings(home=Path(sys.argv[1]))
if sys.argv[2] == "lease":
    lease = ConversionLease(settings, "tok1")
    print("held", flush=True)
    sys.stdin.read()
else:
    with server_lock(settings, "calc"):
        print("held", flush=True)
        sys.stdin.read()
"""


def _holder(home: Path, kind: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(home), kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


@pytest.mark.integration
def test_a_lease_is_live_while_its_process_lives_even_when_killed(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    assert not is_live(settings, "tok1")
    child = _holder(settings.home, "lease")
    assert is_live(settings, "tok1")
    child.kill()  # no cleanup ran: the kernel released the lock
    child.wait()
    assert not is_live(settings, "tok1")


def test_a_released_lease_is_not_live(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    lease = ConversionLease(settings, "abc")
    assert is_live(settings, "abc")
    lease.release()
    lease.release()
    assert not is_live(settings, "abc") and not lease.path.exists()


@pytest.mark.integration
def test_the_server_lock_excludes_another_process(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    child = _holder(settings.home, "server")
    acquired: list[float] = []

    def take() -> None:
        with server_lock(settings, "calc"):
            acquired.append(time.monotonic())

    async def scenario() -> float:
        waiting = asyncio.create_task(asyncio.to_thread(take))
        await asyncio.sleep(0.5)
        assert acquired == [], "taken while another process held it"
        released = time.monotonic()
        assert child.stdin is not None
        child.stdin.close()
        await waiting
        return released

    released = asyncio.run(scenario())
    child.wait()
    assert acquired and acquired[0] >= released


async def test_a_second_conversion_of_a_name_waits_for_the_first(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    order: list[str] = []

    async def convert(label: str, hold: float) -> bool:
        async with conversion_lock(settings, "calc") as waited:
            order.append(f"{label} in")
            await asyncio.sleep(hold)
            order.append(f"{label} out")
            return waited

    first = asyncio.create_task(convert("a", 0.5))
    await asyncio.sleep(0.05)
    waited = await convert("b", 0)
    assert not await first and waited
    assert order == ["a in", "a out", "b in", "b out"]
    # Waiting stays cancellable.
    async with conversion_lock(settings, "calc"):
        blocked = asyncio.create_task(convert("c", 0))
        await asyncio.sleep(0.3)
        blocked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await blocked
    assert "c in" not in order


def test_a_files_lease_shares_and_excludes_a_deletion(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    first = FilesLease(settings, {"calc-aaaa"})
    second = FilesLease(settings, {"calc-aaaa"})  # two children of one version: shared
    with deleting(settings, "calc-aaaa") as free:
        assert not free
    first.release()
    with deleting(settings, "calc-aaaa") as free:
        assert not free  # the other child still runs
    second.release()
    second.release()
    lease_file = settings.home / "locks" / "versions" / "calc-aaaa.lock"
    with deleting(settings, "calc-aaaa") as free:
        assert free
        # While a deletion holds it, no child may start from the files.
        with pytest.raises(FilesGoneError):
            FilesLease(settings, {"calc-aaaa"})
    assert not lease_file.exists()  # the files are gone, so is their lease


@pytest.mark.integration
def test_a_files_lease_ends_with_its_process(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    script = (
        "import sys, time\nfrom pathlib import Path\n"
        "from metaserver.registry.locks import FilesLease\n"
        "from metaserver.settings import Settings\n"
        "lease = FilesLease(Settings(home=Path(sys.argv[1])), {'calc-aaaa'})\n"
        "print('held', flush=True)\ntime.sleep(600)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(settings.home)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    with deleting(settings, "calc-aaaa") as free:
        assert not free
    child.kill()  # no cleanup ran: the kernel released the lock
    child.wait()
    with deleting(settings, "calc-aaaa") as free:
        assert free


@pytest.mark.parametrize("name", ["../../outside", "a/b", "..", ""])
async def test_a_lock_is_never_made_outside_its_directory(tmp_path: Path, name: str) -> None:
    settings = Settings(home=tmp_path / "home")
    with pytest.raises(ValueError, match="not a lock name"), server_lock(settings, name):
        pass
    with pytest.raises(ValueError, match="not a lock name"):
        async with conversion_lock(settings, name):
            pass
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
