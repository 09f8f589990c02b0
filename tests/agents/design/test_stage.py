"""design_tools: the design stage's budget, its chosen tools and their reserve."""

from __future__ import annotations

from metaserver.agents.design import design_tools
from metaserver.agents.design.stage import RESERVE_TOOLS
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import Candidate, CodeReport


def candidate(name: str) -> Candidate:
    return Candidate(
        target=f"pkg.mod:{name}", name=name, signature=f"{name}()", parameters=[], doc=""
    )


def test_the_reserve_is_the_next_best_and_never_a_chosen_tool() -> None:
    code = CodeReport(packages=["pkg"], candidates=[candidate(f"f{i:02}") for i in range(20)])
    designed = design_tools(code, Usage(), max_tools=5, documented_cap=0)
    assert designed.max_tools == 5 and len(designed.tools) == 5
    assert len(designed.reserve) == RESERVE_TOOLS
    chosen = {s.target for s in designed.tools}
    assert not chosen & {s.target for s in designed.reserve}
    # the same order design gives a longer list: the reserve continues the ranking
    longer = design_tools(code, Usage(), max_tools=5 + RESERVE_TOOLS, documented_cap=0)
    assert [s.name for s in longer.tools] == [s.name for s in designed.tools + designed.reserve]


def test_the_budget_grows_for_documented_entry_points() -> None:
    names = [f"f{i:02}" for i in range(20)]
    code = CodeReport(packages=["pkg"], candidates=[candidate(n) for n in names])
    designed = design_tools(code, Usage(documented=names), max_tools=4, documented_cap=30)
    # 20 documented, usable names and half of max_tools: 22, within the cap
    assert designed.max_tools == 20 + 4 // 2
    assert len(designed.tools) == 20 and designed.reserve == []
