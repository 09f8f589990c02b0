"""release_freed_memory: freed heap pages go back to the system (glibc), and the call is
harmless where there is no malloc_trim."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
from pathlib import Path

import pytest

from metaserver.registry.release import malloc_trim, release_freed_memory


def _anonymous_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(malloc_trim() is None, reason="no glibc malloc_trim on this system")
def test_freed_small_blocks_are_given_back() -> None:
    release_freed_memory()
    before = _anonymous_kib()
    # 60 MB in blocks small enough for the heap (not mmap), then all freed but the last:
    # the heap cannot shrink past it, so without a trim the freed pages stay resident.
    blocks = [bytes(4096) for _ in range(15_000)]
    keep = bytes(4096)
    held = _anonymous_kib()
    assert held - before > 40_000
    del blocks
    release_freed_memory()
    assert _anonymous_kib() - before < (held - before) / 2
    assert len(keep) == 4096


def test_without_malloc_trim_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    malloc_trim.cache_clear()
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    try:
        release_freed_memory()  # no error, nothing to call
        assert malloc_trim() is None
    finally:
        malloc_trim.cache_clear()


_LARGE_THEN_SMALLER = """
import sys
from pathlib import Path
from metaserver.registry.release import steady_mmap_threshold

def anonymous_kib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])

if sys.argv[1] == "steady":
    assert steady_mmap_threshold()
large = bytearray(31 << 20)
del large
before = anonymous_kib()
blocks = [bytearray(2 << 20) for _ in range(20)]
grown = anonymous_kib() - before
del blocks[:-1]
print(grown, anonymous_kib() - before)
"""


@pytest.mark.skipif(malloc_trim() is None, reason="no glibc malloc on this system")
@pytest.mark.parametrize("threshold", ["steady", "dynamic"])
def test_large_blocks_are_given_back_when_freed_after_a_larger_one(threshold: str) -> None:
    """With the threshold fixed, a freed 31 MB block does not send the later 2 MB blocks to
    the heap, where freeing them (the last one kept) gave nothing back. In a new process: a
    block is served from the heap's free chunks first, whatever its size."""
    done = subprocess.run(
        [sys.executable, "-c", _LARGE_THEN_SMALLER, threshold],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    grown, kept = (int(value) for value in done.stdout.split())
    assert grown > 30_000
    assert (kept < 10_000) == (threshold == "steady")
