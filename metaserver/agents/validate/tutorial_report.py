"""The report's ``tutorials``: what became of the notebooks and example scripts (issue 30).

Counted apart by how each tool was proven, since a reference made here (``notebook-run``)
is weaker evidence than outputs the authors stored (``notebook-outputs``); the skipped ones
grouped by reason, their particulars (which cell, which file) left out of the key.
"""

from __future__ import annotations

import re
from collections import Counter

from metaserver.contracts import Candidate, SkippedCallable, ToolEvidence, TutorialSummary

__all__ = ["reason_key", "tutorial_summary"]

_CELL = re.compile(r"^cell \d+: ")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def reason_key(reason: str) -> str:
    """A skip reason without its particulars: ``cell 3: the line magic %debug cannot be run``
    as ``the line magic %debug cannot be run``, a file name as ``…``, no parenthesis."""
    key = _QUOTED.sub("…", _CELL.sub("", reason))
    return key.split(" (")[0].strip()


def tutorial_summary(
    candidates: list[Candidate], skipped: list[SkippedCallable], tools: list[ToolEvidence]
) -> TutorialSummary | None:
    """The summary, or None when the source has no tutorial."""
    targets = {c.target for c in candidates if c.kind == "notebook"}
    if not targets and not skipped:
        return None
    mine = [t for t in tools if t.target in targets and t.evidence is not None]
    checks = Counter(t.evidence.check for t in mine if t.evidence is not None)
    passed = Counter(
        t.evidence.check for t in mine if t.evidence is not None and t.status == "passed"
    )
    return TutorialSummary(
        found=len(targets | {s.target for s in skipped}),  # a tool design left out is both
        tools=len(mine),
        stored=checks["notebook-outputs"],
        executed=checks["notebook-run"],
        passed={str(check): count for check, count in passed.items()},
        unseeded=[t.name for t in mine if t.evidence is not None and t.evidence.unseeded],
        skipped=dict(Counter(reason_key(s.reason) for s in skipped)),
    )
