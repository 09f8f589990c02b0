"""Freed memory handed back to the system after the few large steps of search (issue 31).

Loading the embedding model, reading 58,000 stored vectors and reading the BM25 index each
allocate and free far more than they keep (the model's graph optimisation, the vectors'
blobs, the index's text of occurrences). glibc's allocator keeps what was freed inside its
heap for reuse, so a searched meta-server's resident memory stayed at its peak: about a
third of it was freed memory. ``malloc_trim`` returns those pages; it walks the heap (a few
milliseconds), so it runs after those steps only, never per search. Elsewhere than glibc it
does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


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
