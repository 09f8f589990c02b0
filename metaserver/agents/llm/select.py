"""Selection agent: which of the CodeReport's callables become tools.

The deterministic ranking (design.py) prefers what can be proven; a model adds judgment
about what matters to a user of the library. The model only picks among the CodeReport's
usable targets (safe, current, callable from JSON: design's own filter); the schema
enumerates them and the answer is checked again. Its picks are topped up with the
deterministic design's tools, so a model that picks few never leaves the server with fewer
tools, and the chosen set goes through ``design`` again, so class handles, names and mined
examples follow the same rules as without a model.
"""

from __future__ import annotations

from metaserver.agents.design.specs import design, rank_score, usable
from metaserver.agents.llm.budget import longest_fitting
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import Candidate, CodeReport, ToolSpec
from metaserver.models import Message, Model, OutputSchema
from metaserver.prompts import render

SUMMARY_CHARS = 160


async def select(
    code: CodeReport,
    specs: list[ToolSpec],
    max_tools: int,
    model: Model,
    ledger: Ledger,
    pool: int = 200,
    mined: Usage | None = None,
    reserve: list[ToolSpec] | None = None,
) -> list[ToolSpec]:
    """ToolSpecs for the callables the model finds most useful, or ``specs`` unchanged.

    Args:
        code: every candidate the analysis found.
        specs: the deterministic design of ``code``.
        max_tools: tools at most.
        model: the selection model.
        ledger: where calls and contributions are counted.
        pool: how many of the best-ranked candidates the model is shown.
        mined: the usage mined from the repository, which design uses too.
        reserve: the designs that stand in for tools validation drops (the pipeline's).
            Given, the model's picks that design did not choose go to its front and
            ``specs`` is returned unchanged: a pick then replaces only a tool that failed,
            never one that would have passed (issue 32's "never worse": on hmmlearn a pick
            displaced design's last tool, a tutorial that passes). Unset, the picks lead the
            tools and design's last ones make room for them.
    """
    ranked = sorted(
        (c for c in code.candidates if usable(c)), key=lambda c: (-rank_score(c), c.name)
    )
    if len(ranked) <= len(specs):
        return specs  # every usable candidate is already a tool: nothing to choose
    by_target = {c.target: c for c in ranked}
    # Design's own choices lead the list shown, so the model sees the deterministic best.
    designed = [by_target[s.target] for s in specs if s.target in by_target]
    shown = list({c.target: c for c in [*designed, *ranked]}.values())[:pool]

    def prompt(count: int) -> list[Message]:
        lines = "\n".join(_line(c) for c in shown[:count])
        packages = ", ".join(code.packages)
        return render("select", max_tools=str(max_tools), package=packages, candidates=lines)

    # The best-ranked candidates that fit the model's context, design's own choices first.
    budget = await model.budget(ledger.deadline)
    count = longest_fitting(prompt, len(shown), budget)
    if count == 0:
        ledger.unfit("tool_selection", "selection: not one candidate", budget)
        return specs
    shown = shown[:count]
    answer = await ledger.ask(
        model,
        prompt(count),
        OutputSchema(name="tool_selection", json_schema=selection_schema(shown, max_tools)),
    )
    picks = _valid_picks(answer, by_target, ledger)[:max_tools]
    if not picks:
        return specs
    chosen = list(dict.fromkeys([*picks, *(s.target for s in specs)]))[:max_tools]
    # A method's tool needs its class's constructor tool: keep owners available to design.
    # Looked up among every candidate: design's own tools may include one the model was not
    # offered (not ``usable`` alone), and they top up the picks (pint: a KeyError here).
    every = {c.target: c for c in code.candidates}
    owners = {every[t].owner for t in chosen if t in every and every[t].owner}
    subset = [c for c in code.candidates if c.target in chosen or c.target in owners]
    order = {target: i for i, target in enumerate(chosen)}
    redesigned = design(CodeReport(packages=code.packages, candidates=subset), max_tools, mined)
    selected = sorted(redesigned, key=lambda s: order.get(s.target, -1))
    targets, names = {s.target for s in specs}, {s.name for s in specs}
    new = [s for s in selected if s.target not in targets and s.name not in names]
    ledger.contributed("selected", len(new))
    if reserve is None:
        return selected
    held = {s.target for s in new}
    reserve[:] = [*new, *(s for s in reserve if s.target not in held)]
    return specs


def selection_schema(shown: list[Candidate], max_tools: int) -> dict[str, object]:
    """The answer's JSON schema: a list of targets, each one of those shown."""
    return {
        "type": "object",
        "properties": {
            "targets": {
                "type": "array",
                "items": {"type": "string", "enum": [c.target for c in shown]},
                "maxItems": max_tools,
            }
        },
        "required": ["targets"],
        "additionalProperties": False,
    }


def _valid_picks(
    answer: dict[str, object] | None, by_target: dict[str, Candidate], ledger: Ledger
) -> list[str]:
    if answer is None:
        return []
    targets = answer.get("targets")
    if not isinstance(targets, list):
        ledger.rejected("selection without a list of targets")
        return []
    picks = [t for t in targets if isinstance(t, str) and t in by_target]
    ledger.rejected("targets not in the CodeReport", len(targets) - len(picks))
    return list(dict.fromkeys(picks))


def _line(candidate: Candidate) -> str:
    flags = []
    if any(e.has_expected for e in candidate.examples):
        flags.append("doctest")
    if candidate.in_all:
        flags.append("exported")
    summary = " ".join(candidate.summary.split())[:SUMMARY_CHARS]
    return f"{candidate.target} | {candidate.signature} | {summary} | {' '.join(flags)}"
