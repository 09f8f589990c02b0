"""Probe helper (runs INSIDE the target environment; standard library only): its time budget.

A very large library (thousands of modules and callables) can take the probe past the
sandbox's wall-clock limit, and then the whole conversion fails. The probe therefore keeps a
budget of its own, below that limit (``--budget``, a share of the configured probe timeout:
analyse.py): it reads in order of value, asks ``spent()`` between one module or callable and
the next, and when the budget is spent it stops and writes what it has, with a note of what
it left unread (``unread`` in the report). The sandbox's limit stays the last guard.
"""

import time

MAX_NAMED = 20  # the unread targets a note names; the rest are counted


class Budget:
    """Seconds the probe may spend before it stops walking (None: no budget)."""

    def __init__(self, seconds, started):
        self.seconds = seconds
        self.started = started
        self.unread = []  # {"target", "reason"}: what the probe left unread, and why

    def elapsed(self):
        return time.monotonic() - self.started

    def spent(self):
        return self.seconds is not None and self.elapsed() >= self.seconds

    def note(self, target, what):
        """``what`` (in ``target``, a package) was left unread because the budget was spent."""
        reason = f"{what}: the probe's {self.seconds:g} s budget was spent"
        self.unread.append({"target": target, "reason": reason})


def named(names):
    """The first few of ``names``, and how many there are: ``3 (a, b, c)``."""
    shown = ", ".join(names[:MAX_NAMED]) + (", ..." if len(names) > MAX_NAMED else "")
    return f"{len(names)} ({shown})"
