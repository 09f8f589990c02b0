"""The report's tutorials summary: counted apart by check, skipped grouped by reason."""

from __future__ import annotations

from metaserver.agents.validate.tutorial_report import reason_key, tutorial_summary
from metaserver.contracts import (
    Candidate,
    Evidence,
    NotebookCell,
    NotebookTarget,
    SkippedCallable,
    ToolEvidence,
)


def candidate(name: str) -> Candidate:
    target = NotebookTarget(path=f"t/{name}.ipynb", cells=[NotebookCell(cell=0, source="1")])
    return Candidate(
        target=f"t/{name}.ipynb", name=name, signature="", parameters=[], kind="notebook",
        notebook=target,
    )  # fmt: skip


def tool(name: str, check: str, status: str, unseeded: bool = False) -> ToolEvidence:
    evidence = Evidence(arguments={}, check=check, unseeded=unseeded)  # type: ignore[arg-type]
    return ToolEvidence(name=name, target=f"t/{name}.ipynb", status=status, evidence=evidence)  # type: ignore[arg-type]


def test_reason_keys_leave_the_particulars_out() -> None:
    assert reason_key("cell 3: the line magic %debug cannot be run") == (
        "the line magic %debug cannot be run"
    )
    assert reason_key("reads 'x.csv', a data file the repository does not hold") == (
        "reads …, a data file the repository does not hold"
    )
    assert reason_key("needs the network (imports requests)") == "needs the network"


def test_the_summary_counts_checks_apart() -> None:
    tools = [
        tool("a", "notebook-outputs", "passed"),
        tool("b", "notebook-run", "passed"),
        tool("c", "notebook-run", "dropped", unseeded=True),
        ToolEvidence(name="f", target="pkg:f", status="passed", evidence=Evidence(arguments={})),
    ]
    skipped = [
        SkippedCallable(target="t/d.ipynb", reason="needs the network (imports requests)"),
        SkippedCallable(target="t/e.ipynb", reason="needs the network (reads http://x)"),
    ]
    summary = tutorial_summary([candidate(n) for n in "abc"], skipped, tools)
    assert summary is not None
    assert (summary.found, summary.tools, summary.stored, summary.executed) == (5, 3, 1, 2)
    assert summary.passed == {"notebook-outputs": 1, "notebook-run": 1}
    assert summary.unseeded == ["c"]
    assert summary.skipped == {"needs the network": 2}
    assert tutorial_summary([], [], tools) is None
    # A tutorial chosen at analysis that design left out is a candidate and a skipped one.
    left_out = SkippedCallable(target="t/c.ipynb", reason="beyond the tutorials' share")
    again = tutorial_summary([candidate(n) for n in "abc"], [*skipped, left_out], tools[:2])
    assert again is not None and again.found == 5 and again.tools == 2
