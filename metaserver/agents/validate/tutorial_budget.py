"""The tutorials' time budget, spent by their real validation runs (issue 30).

Analysis orders the tutorials by what they show (``analysis/tutorial_choice.py``); here they
are run in that order while the seconds their validation really took, over every round,
stay under ``settings.timeouts.tutorials``. An estimate made before anything ran (a fixed
time per run) was no bound: PyDMD's five tutorial tools took 459-505 s of validation
against an estimated 240. A tutorial that starts within the budget is run to its end (its
own call timeout bounds it); each one after is not run, and the report lists it with the
reason (``OVER_BUDGET``).

A tutorial run here for its reference (``notebook-run``) is run about three times (``RUNS``:
its reference, its reproduction, a run with other numbers), so its first run tells what the
rest will cost (``after_first``). One whose runs would spend more than a quarter of the
budget (``SHARE``) is heavy: it waits, while the first runs put off, its own included, stay
within that quarter: the tutorials after it run first, then the waiting ones, the quickest
first, while time is left. A heavy one that cannot wait, once another tutorial has been
checked, stops when its other runs would not fit in what is left of the budget. Each is
listed with its first run's seconds as the reason. Before, the first tutorials in the order
of what they show spent the budget whatever they cost: scikit-rf's ``Multiline TRL`` took
118 s a run and its second timed out, ``IEEEP370 Deembedding`` 45 s, and of its 22 tutorial
tools 5 ran in 240 s. While no tutorial has been checked, a heavy one goes on to its end as
before, so a budget smaller than every tutorial still proves one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from metaserver.contracts import ToolEvidence, ToolSpec

__all__ = ["OVER_BUDGET", "RUNS", "SHARE", "Next", "TutorialClock", "over_budget", "runs_of"]

OVER_BUDGET = "over the tutorial time budget"
RUNS = 3
"""The runs of a tutorial run here: its reference, its reproduction, one with other numbers."""
SHARE = 4
"""A tutorial whose runs would spend more than the budget over this is heavy."""
Next = Literal["go on", "wait", "stop"]


@dataclass
class TutorialClock:
    """Seconds the tutorials' validation has spent, against ``budget``."""

    budget: float
    spent: float = 0.0
    runs: set[str] = field(default_factory=set)
    put_off: float = 0.0  # seconds of the first runs of the tutorials made to wait
    checked: int = 0  # tutorials whose check ended

    @property
    def share(self) -> float:
        return self.budget / SHARE

    def allows(self) -> bool:
        """Whether another tutorial may start."""
        return self.spent < self.budget

    def start(self) -> float:
        return time.monotonic()

    def charge(self, spec: ToolSpec, started: float, ended: bool = True) -> None:
        """Count the seconds since ``started`` against the budget, as ``spec``'s (whose
        check ``ended``, or waits)."""
        self.spent += time.monotonic() - started
        self.runs.add(spec.name)
        self.checked += ended

    def after_first(self, first: float, runs: int = RUNS) -> Next:
        """What a tutorial run here, ``runs`` times in all, does after a reference run of
        ``first`` seconds (this run not yet charged): goes on; waits for the others (heavy,
        within the put-off share); or stops, heavy and unable to wait, its other runs past
        what is left, once another tutorial has been checked."""
        if runs * first <= self.share:
            return "go on"
        if self.put_off + first <= self.share:
            self.put_off += first
            return "wait"
        if self.checked and (runs - 1) * first > self.budget - self.spent - first:
            return "stop"
        return "go on"

    def resumes(self, first: float, runs: int = RUNS) -> bool:
        """Whether a tutorial that waited after a first run of ``first`` seconds goes on:
        time is left, and its other runs fit in it once another tutorial was checked."""
        left = self.budget - self.spent
        return left > 0 and (not self.checked or (runs - 1) * first <= left)

    def refused_heavy(
        self, spec: ToolSpec, first: float, runs: int = RUNS, stopped: bool = False
    ) -> ToolEvidence:
        """The evidence of ``spec`` after its first run of ``first`` seconds, ``stopped``
        there or made to wait and not resumed: dropped, with that run as its reason."""
        left = max(self.budget - self.spent, 0.0)
        other = f"its {runs - 1} other run{'s' if runs > 2 else ''}"
        if stopped:
            then = (
                f"{other} would take about {(runs - 1) * first:.0f} s, past the {left:.0f} s left"
            )
        else:
            then = f"it waited for lighter ones; {other} did not fit in the {left:.0f} s left"
        why = f"{OVER_BUDGET} ({self.budget:g} s; its first run took {first:.0f} s; {then})"
        return ToolEvidence(name=spec.name, target=spec.target, status="dropped", error=why)

    def refused(self, spec: ToolSpec) -> ToolEvidence:
        """The evidence of ``spec`` not run: dropped, with the budget as its reason."""
        count = len(self.runs)
        why = (
            f"{OVER_BUDGET} ({self.budget:g} s; {self.spent:.0f} s spent by "
            f"{count} tutorial{'s' if count != 1 else ''} before it)"
        )
        return ToolEvidence(name=spec.name, target=spec.target, status="dropped", error=why)


def runs_of(spec: ToolSpec) -> int:
    """How many times a tutorial run here is run: ``RUNS``, one fewer when it has no
    parameter to move (no run with other numbers)."""
    return RUNS if spec.parameters else RUNS - 1


def over_budget(evidence: ToolEvidence) -> bool:
    """Whether ``evidence`` is of a tutorial left unrun by the budget."""
    return evidence.status == "dropped" and (evidence.error or "").startswith(OVER_BUDGET)
