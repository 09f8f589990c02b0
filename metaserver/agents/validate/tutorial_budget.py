"""The tutorials' time budget, spent by their real validation runs (issue 30).

Analysis orders the tutorials by what they show (``analysis/tutorial_choice.py``); here they
are run in that order while the seconds their validation really took, over every round,
stay under ``settings.timeouts.tutorials``. An estimate made before anything ran (a fixed
time per run) was no bound: PyDMD's five tutorial tools took 459-505 s of validation
against an estimated 240. A tutorial that starts within the budget is run to its end (its
own call timeout bounds it); each one after is not run, and the report lists it with the
reason (``OVER_BUDGET``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from metaserver.contracts import ToolEvidence, ToolSpec

__all__ = ["OVER_BUDGET", "TutorialClock", "over_budget"]

OVER_BUDGET = "over the tutorial time budget"


@dataclass
class TutorialClock:
    """Seconds the tutorials' validation has spent, against ``budget``."""

    budget: float
    spent: float = 0.0
    runs: set[str] = field(default_factory=set)

    def allows(self) -> bool:
        """Whether another tutorial may start."""
        return self.spent < self.budget

    def start(self) -> float:
        return time.monotonic()

    def charge(self, spec: ToolSpec, started: float) -> None:
        """Count the seconds since ``started`` against the budget, as ``spec``'s."""
        self.spent += time.monotonic() - started
        self.runs.add(spec.name)

    def refused(self, spec: ToolSpec) -> ToolEvidence:
        """The evidence of ``spec`` not run: dropped, with the budget as its reason."""
        count = len(self.runs)
        why = (
            f"{OVER_BUDGET} ({self.budget:g} s; {self.spent:.0f} s spent by "
            f"{count} tutorial{'s' if count != 1 else ''} before it)"
        )
        return ToolEvidence(name=spec.name, target=spec.target, status="dropped", error=why)


def over_budget(evidence: ToolEvidence) -> bool:
    """Whether ``evidence`` is of a tutorial left unrun by the budget."""
    return evidence.status == "dropped" and (evidence.error or "").startswith(OVER_BUDGET)
