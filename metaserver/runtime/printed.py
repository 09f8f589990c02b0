"""What a tool's call prints: its log on stderr, and its answer when it returns nothing.

A scientific library often shows its result by printing it (periodictable's
``sld_table()`` prints the table its docstring shows and returns None; a results object's
``show_table()``). The client of such a tool got ``null``. While a tool runs, ``sys.stdout``
is one shared object that writes everything to stderr, as before (the protocol owns
descriptor 1), and keeps what the calling thread printed, up to a limit, so that a call
that returns None answers with that text instead.

One shared object rather than one per call: tools run in worker threads, and
``redirect_stdout`` per call would, on overlapping calls, restore the real stdout while
another call still runs (its prints then reach descriptor 1, or are lost to its record).
The first call in installs it, the last one out puts back what was there. The record is
per thread; what a library's own threads print goes to the log only.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PRINTED_LIMIT", "Printed", "printed"]

PRINTED_LIMIT = 1_000_000
"""Characters of a call's printed text that are kept (the rest still reaches the log)."""


class Printed:
    """What one call printed, up to ``limit`` characters."""

    def __init__(self, limit: int = PRINTED_LIMIT) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0

    def keep(self, text: str) -> None:
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Stdout(io.TextIOBase):
    """``sys.stdout`` while a tool runs: stderr, and the calling thread's record."""

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def record(self) -> Printed | None:
        return getattr(self._local, "record", None)

    @record.setter
    def record(self, value: Printed | None) -> None:
        self._local.record = value

    def write(self, text: str) -> int:
        record = self.record
        if record is not None:
            record.keep(text)
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def fileno(self) -> int:  # a library that writes to the descriptor writes to stderr
        return sys.stderr.fileno()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(sys.stderr, "encoding", None) or "utf-8"


_STDOUT = _Stdout()
_INSTALLED = threading.Lock()
_calls = 0
_saved: object = None


@contextmanager
def printed(limit: int = PRINTED_LIMIT) -> Iterator[Printed]:
    """While it lasts, what this thread prints is logged on stderr and kept in the record
    it yields."""
    global _calls, _saved
    record = Printed(limit)
    outer = _STDOUT.record
    _STDOUT.record = record
    with _INSTALLED:
        if _calls == 0:
            _saved, sys.stdout = sys.stdout, _STDOUT
        _calls += 1
    try:
        yield record
    finally:
        _STDOUT.record = outer
        with _INSTALLED:
            _calls -= 1
            if _calls == 0:
                sys.stdout = _saved  # type: ignore[assignment]
                _saved = None
