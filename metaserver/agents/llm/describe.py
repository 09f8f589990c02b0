"""Names-and-descriptions agent: what an agent reads when it decides to call a tool.

Every proposal is checked: a name must match MCP's ``^[a-zA-Z0-9_-]{1,64}$`` and be unique
in the server (also after "-" becomes "_", since the generator makes a Python function of
it), a description must be non-empty, at most 1024 characters, and pass the checks a weak
model fails (``checks.py``: not repetitive, not cut off, grounded in the tool's own words). A
tool whose proposal fails keeps its deterministic name and description; the target and
parameters never change. Batches and the documentation shown are fitted to the model's
context (``budget.py``).
"""

from __future__ import annotations

import asyncio
import json
import re

from metaserver.agents.design.specs import MAX_DESCRIPTION
from metaserver.agents.llm.budget import TOKENS_PER_DESCRIPTION, batch_size, fitted_doc
from metaserver.agents.llm.checks import cut_off, grounded, repetitive
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.llm.schemas import per_tool_schema
from metaserver.contracts import JSON, CodeReport, ToolSpec
from metaserver.models import ContextBudget, Message, Model, OutputSchema
from metaserver.prompts import render

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
BATCH = 12  # tools per call: enough context to keep names consistent, short enough answers
DOC_CHARS = 1500


async def describe(
    specs: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger
) -> list[ToolSpec]:
    """``specs`` with the model's names and descriptions where they pass the checks."""
    budget = await model.budget(ledger.deadline)
    size = batch_size(BATCH, budget, TOKENS_PER_DESCRIPTION)
    batches = [specs[i : i + size] for i in range(0, len(specs), size)]
    answers = await asyncio.gather(
        *(_ask_fitted(batch, code, model, ledger, budget) for batch in batches)
    )
    proposals: dict[str, tuple[str | None, str | None]] = {}
    for answer in answers:
        proposals.update(answer)
    names = _unique_names(specs, {t: n for t, (n, _) in proposals.items() if n}, ledger)
    result = []
    for spec in specs:
        description = proposals.get(spec.target, (None, None))[1] or spec.description
        ledger.contributed("renamed", int(names[spec.target] != spec.name))
        ledger.contributed("described", int(description != spec.description))
        result.append(
            spec.model_copy(update={"name": names[spec.target], "description": description})
        )
    return result


async def _ask_fitted(
    batch: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger, budget: ContextBudget
) -> dict[str, tuple[str | None, str | None]]:
    """The answer for ``batch``, with as much documentation as the context holds; a batch
    whose prompt does not fit even without documentation is asked for in halves."""

    def prompt(chars: int) -> list[Message]:
        return _prompt(batch, code, chars)

    chars = fitted_doc(prompt, DOC_CHARS, budget)
    if chars >= 0:
        return await _ask(batch, code, model, ledger, prompt(chars))
    if len(batch) == 1:
        ledger.unfit("tool_descriptions", f"descriptions: {batch[0].target}", budget)
        return {}
    half = len(batch) // 2
    first = await _ask_fitted(batch[:half], code, model, ledger, budget)
    return {**first, **await _ask_fitted(batch[half:], code, model, ledger, budget)}


def _prompt(batch: list[ToolSpec], code: CodeReport, chars: int) -> list[Message]:
    docs = {c.target: (c.signature, c.doc) for c in code.candidates}
    tools = [
        {
            "target": spec.target,
            "name": spec.name,
            "signature": docs.get(spec.target, ("", ""))[0],
            "documentation": (docs.get(spec.target, ("", ""))[1] or spec.description)[:chars],
        }
        for spec in batch
    ]
    return render("describe", package=", ".join(code.packages), tools=json.dumps(tools, indent=1))


async def _ask(
    batch: list[ToolSpec],
    code: CodeReport,
    model: Model,
    ledger: Ledger,
    messages: list[Message],
) -> dict[str, tuple[str | None, str | None]]:
    answer = await ledger.ask(
        model,
        messages,
        OutputSchema(
            name="tool_descriptions",
            json_schema=descriptions_schema(batch),
            # A terse answer for every tool of the batch: less arrives cut, and is lost.
            min_tokens=TOKENS_PER_DESCRIPTION * len(batch) // 2,
        ),
    )
    if answer is None:
        return {}
    items = answer.get("tools")
    if not isinstance(items, list):
        ledger.rejected("descriptions without a list of tools")
        return {}
    wanted = {spec.target: spec for spec in batch}
    docs = {c.target: (c.signature, c.doc) for c in code.candidates}
    proposals: dict[str, tuple[str | None, str | None]] = {}
    for item in items:
        target = item.get("target") if isinstance(item, dict) else None
        if not isinstance(item, dict) or target not in wanted or target in proposals:
            ledger.rejected(f"description entry for an unknown or repeated tool: {target!r}")
            continue
        spec = wanted[str(target)]
        sources = [spec.target, spec.name, *docs.get(spec.target, ("", "")), spec.description]
        names = [p.name for p in spec.parameters]
        text = _text(item, ledger, sources, names)
        proposals[str(target)] = (_name(item.get("name"), ledger), text)
    return proposals


def descriptions_schema(batch: list[ToolSpec]) -> dict[str, JSON]:
    """The answer's JSON schema: one {target, name, description} per tool."""
    return per_tool_schema(
        batch,
        {
            "name": {"type": "string", "pattern": NAME.pattern},
            "description": {"type": "string", "minLength": 1, "maxLength": MAX_DESCRIPTION},
        },
    )


def _name(value: JSON, ledger: Ledger) -> str | None:
    if isinstance(value, str) and NAME.match(value):
        return value
    ledger.rejected(f"invalid tool name {str(value)[:80]!r}")
    return None


def _text(
    item: dict[str, JSON], ledger: Ledger, sources: list[str], names: list[str]
) -> str | None:
    value = item.get("description")
    text = " ".join(value.split()) if isinstance(value, str) else ""
    target = item.get("target")
    if not text or len(text) > MAX_DESCRIPTION:
        ledger.rejected(f"description empty or over {MAX_DESCRIPTION} characters")
    elif repetitive(text):
        ledger.rejected(f"{target}: description repeats itself", why="repeated")
    elif cut_off(text, MAX_DESCRIPTION):
        ledger.rejected(f"{target}: description cut off", why="cut")
    elif not grounded(text, sources, names):
        ledger.rejected(f"{target}: description shares no word with its docs", why="ungrounded")
    else:
        return text
    return None


def _unique_names(
    specs: list[ToolSpec], proposed: dict[str, str], ledger: Ledger
) -> dict[str, str]:
    """Final names: proposals, except those that collide, which fall back to design's name."""
    accepted = dict(proposed)
    while True:
        final = {s.target: accepted.get(s.target, s.name) for s in specs}
        seen: dict[str, list[str]] = {}
        for target, name in final.items():
            seen.setdefault(name.replace("-", "_"), []).append(target)
        clashes = [t for ts in seen.values() if len(ts) > 1 for t in ts if t in accepted]
        if not clashes:
            return final
        # Design's names are unique among themselves, so reverting proposals always ends.
        for target in clashes:
            ledger.rejected(f"name {accepted.pop(target)!r} is not unique")
