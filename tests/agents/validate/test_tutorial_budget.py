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


def test_a_heavy_first_run_waits_or_stops() -> None:
    clock = TutorialClock(budget=240.0)  # a quarter: 60 s for a tutorial's three runs
    assert clock.after_first(20.0) == "go on"  # 60 s: within its share
    assert clock.after_first(45.0) == "wait"  # 135 s: it waits for the lighter ones
    # 118 s would put off 163 s of first runs; no tutorial checked yet: it goes on.
    assert clock.after_first(118.0) == "go on"
    clock.charge(spec("a"), clock.start() - 100.0)
    # One was checked, 100 s spent: a 118 s first run leaves 22 s, not its other 236.
    assert clock.after_first(118.0) == "stop"
    assert clock.after_first(50.0, runs=2) == "go on"  # its one other run fits in 90 s
    clock.charge(spec("b"), clock.start() - 118.0)
    stopped = clock.refused_heavy(spec("b"), 118.0, stopped=True)
    assert stopped.status == "dropped" and over_budget(stopped)
    assert stopped.error == (
        "over the tutorial time budget (240 s; its first run took 118 s; its 2 other runs "
        "would take about 236 s, past the 22 s left)"
    )
    assert clock.resumes(10.0) and not clock.resumes(45.0)  # 22 s left: 20 fit, 90 do not
    waited = clock.refused_heavy(spec("c"), 45.0)
    assert waited.error is not None and over_budget(waited)
    assert "its first run took 45 s; it waited for lighter ones" in waited.error


def test_every_tutorial_heavy_puts_off_no_more_than_a_share() -> None:
    clock = TutorialClock(budget=240.0)
    assert clock.after_first(50.0) == "wait"  # 50 s put off, within the 60 s share
    assert clock.after_first(50.0) == "go on"  # 100 s would not be: run in order
    assert clock.resumes(50.0)  # nothing checked yet: a waiting one goes on while time is left
