"""Names-and-descriptions agent: what an agent reads when it decides to call a tool.

Every proposal is checked: a name must match MCP's ``^[a-zA-Z0-9_-]{1,64}$`` and be unique
in the server (also after "-" becomes "_", since the generator makes a Python function of
it), a description must be non-empty and at most 1024 characters. A tool whose proposal
fails keeps its deterministic name and description; the target and parameters never change.
"""

from __future__ import annotations

import asyncio
import json
import re

from metaserver.agents.design.specs import MAX_DESCRIPTION
from metaserver.agents.llm.ledger import Ledger
from metaserver.contracts import JSON, CodeReport, ToolSpec
from metaserver.models import Model, OutputSchema
from metaserver.prompts import render

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
BATCH = 12  # tools per call: enough context to keep names consistent, short enough answers
DOC_CHARS = 1500


async def describe(
    specs: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger
) -> list[ToolSpec]:
    """``specs`` with the model's names and descriptions where they pass the checks."""
    batches = [specs[i : i + BATCH] for i in range(0, len(specs), BATCH)]
    answers = await asyncio.gather(*(_ask(batch, code, model, ledger) for batch in batches))
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


async def _ask(
    batch: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger
) -> dict[str, tuple[str | None, str | None]]:
    docs = {c.target: (c.signature, c.doc) for c in code.candidates}
    tools = [
        {
            "target": spec.target,
            "name": spec.name,
            "signature": docs.get(spec.target, ("", ""))[0],
            "documentation": (docs.get(spec.target, ("", ""))[1] or spec.description)[:DOC_CHARS],
        }
        for spec in batch
    ]
    answer = await ledger.ask(
        model,
        render("describe", package=", ".join(code.packages), tools=json.dumps(tools, indent=1)),
        OutputSchema(name="tool_descriptions", json_schema=descriptions_schema(batch)),
    )
    if answer is None:
        return {}
    items = answer.get("tools")
    if not isinstance(items, list):
        ledger.rejected("descriptions without a list of tools")
        return {}
    wanted = {spec.target for spec in batch}
    proposals: dict[str, tuple[str | None, str | None]] = {}
    for item in items:
        target = item.get("target") if isinstance(item, dict) else None
        if not isinstance(item, dict) or target not in wanted or target in proposals:
            ledger.rejected(f"description entry for an unknown or repeated tool: {target!r}")
            continue
        proposals[str(target)] = (_name(item.get("name"), ledger), _text(item, ledger))
    return proposals


def descriptions_schema(batch: list[ToolSpec]) -> dict[str, JSON]:
    """The answer's JSON schema: one {target, name, description} per tool."""
    return {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "target": {"type": "string", "enum": [s.target for s in batch]},
                        "name": {"type": "string", "pattern": NAME.pattern},
                        "description": {
                            "type": "string",
                            "minLength": 1,
                            "maxLength": MAX_DESCRIPTION,
                        },
                    },
                    "required": ["target", "name", "description"],
                    "additionalProperties": False,
                },
                "maxItems": len(batch),
            }
        },
        "required": ["tools"],
        "additionalProperties": False,
    }


def _name(value: JSON, ledger: Ledger) -> str | None:
    if isinstance(value, str) and NAME.match(value):
        return value
    ledger.rejected(f"invalid tool name {str(value)[:80]!r}")
    return None


def _text(item: dict[str, JSON], ledger: Ledger) -> str | None:
    value = item.get("description")
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if text and len(text) <= MAX_DESCRIPTION:
        return text
    ledger.rejected(f"description empty or over {MAX_DESCRIPTION} characters")
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
