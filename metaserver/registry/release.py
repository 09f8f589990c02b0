"""Freed memory handed back to the system after the few large steps of search (issue 31).

Loading the embedding model, reading 58,000 stored vectors and reading the BM25 index each
allocate and free far more than they keep (the model's graph optimisation, the vectors'
blobs, the index's text of occurrences). glibc's allocator keeps what was freed inside its
heap for reuse, so a searched meta-server's resident memory stayed at its peak: about a
third of it was freed memory. ``malloc_trim`` returns those pages; it walks the heap (a few
milliseconds), so it runs after those steps only, never per search. Elsewhere than glibc it
does nothing.

glibc serves a block of ``M_MMAP_THRESHOLD`` bytes or more with a mapping of its own, given
back when the block is freed; but each such block freed raises the threshold to its size
(up to 32 MB), so after the first large temporaries (the means of 20,000 tools, 31 MB) the
later ones came from the heap, and after a registration by another process (the vectors
and the BM25 index read again, on other threads' heaps) a searched meta-server held 15 to
22 MB more that no trim returned. :func:`steady_mmap_threshold` fixes the threshold at
:data:`MMAP_THRESHOLD` before search's first large step (measured: 284 -> 263 MB after the
bench's searches at 20,000 tools, issue 31).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable

# Blocks of this size or more get mappings of their own, given back when freed: a search's
# own temporaries are smaller (the first pass's scores of 20,000 tools, 240 KB).
MMAP_THRESHOLD = 1 << 20
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h


@functools.cache
def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # no libc to load, or not glibc's
        return None
    return trim


def release_freed_memory() -> None:
    """Give the pages of freed memory back to the system, where the allocator can."""
    trim = malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def steady_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` (once per process); False where
    the C library has no ``mallopt``."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt: Callable[[int, int], int] = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
