"""The design stage as the pipeline calls it: how many tools, the chosen designs, and the
next-best ones kept in reserve."""

from __future__ import annotations

from dataclasses import dataclass

from metaserver.agents.design.specs import design, tool_budget
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import CodeReport, ToolSpec

# Designs kept in reserve, to stand in for tools that fail validation beyond repair.
RESERVE_TOOLS = 6


@dataclass(frozen=True)
class Design:
    """What design chose: ``tools`` (best first), ``reserve`` (the next best, to stand in for
    tools that get dropped) and ``max_tools`` (the budget they were chosen within)."""

    tools: list[ToolSpec]
    reserve: list[ToolSpec]
    max_tools: int


def design_tools(code: CodeReport, usage: Usage, max_tools: int, documented_cap: int) -> Design:
    """Design up to ``max_tools`` tools, or more (up to ``documented_cap``) when the README
    and guides call more entry points (:func:`tool_budget`), and a reserve after them."""
    budget = tool_budget(code, usage, max_tools, documented_cap)
    chosen = design(code, budget, usage)
    longer = design(code, budget + RESERVE_TOOLS, usage)
    return Design(tools=chosen, reserve=reserve(longer, chosen), max_tools=budget)


def reserve(longer: list[ToolSpec], chosen: list[ToolSpec]) -> list[ToolSpec]:
    """The next-best designs after ``chosen``: they stand in for tools that get dropped."""
    targets = {spec.target for spec in chosen}
    names = {spec.name for spec in chosen}
    return [s for s in longer if s.target not in targets and s.name not in names]
