"""The tutorials' clock: who may start, and the reason given to one that may not."""

from __future__ import annotations

from metaserver.agents.validate.tutorial_budget import TutorialClock, over_budget
from metaserver.contracts import ToolEvidence, ToolSpec


def spec(name: str) -> ToolSpec:
    return ToolSpec(
        name=name, target=f"t/{name}.ipynb", kind="notebook", description="", parameters=[]
    )


def test_a_tutorial_starts_only_while_time_is_left() -> None:
    clock = TutorialClock(budget=10.0)
    assert clock.allows()
    clock.charge(spec("a"), clock.start() - 12.0)  # a run that took 12 s
    assert not clock.allows()
    refused = clock.refused(spec("b"))
    assert refused.status == "dropped" and refused.evidence is None
    assert refused.error is not None
    assert refused.error.startswith("over the tutorial time budget (10 s; 12 s spent by 1 ")
    assert over_budget(refused)


def test_a_failure_is_not_a_budget_skip() -> None:
    failed = ToolEvidence(name="a", target="t/a.ipynb", status="failed", error="boom")
    assert not over_budget(failed)
    dropped = ToolEvidence(name="a", target="t/a.ipynb", status="dropped", error="a timeout")
    assert not over_budget(dropped)
