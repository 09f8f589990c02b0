"""Example-requests agent: what users would ask for when a tool is the answer.

The registry indexes and embeds a few example requests per tool next to its description
(:mod:`metaserver.registry.requests`), so that a request worded as a user words it finds a
tool documented as its author documented it. With a model configured they are written here,
from the tool's name, description, documentation and example calls; a tool the model gives
none for (or whose answer fails the checks: 1 to 3 non-empty single-line strings of at most
:data:`~metaserver.registry.requests.MAX_CHARS` characters) gets the deterministic ones at
registration.
"""

from __future__ import annotations

import asyncio
import json

from metaserver.agents.llm.budget import TOKENS_PER_REQUESTS, batch_size, fitted_doc
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.llm.schemas import per_tool_schema
from metaserver.contracts import JSON, CodeReport, ToolSpec
from metaserver.models import ContextBudget, Message, Model, OutputSchema
from metaserver.prompts import render
from metaserver.registry.requests import MAX_CHARS, MAX_REQUESTS, clean_requests

BATCH = 12  # tools per call, as for descriptions
DOC_CHARS = 800
EXAMPLES = 2  # example calls shown per tool


async def write_requests(
    specs: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger
) -> list[ToolSpec]:
    """``specs`` with the model's example requests where they pass the checks."""
    budget = await model.budget(ledger.deadline)
    size = batch_size(BATCH, budget, TOKENS_PER_REQUESTS)
    batches = [specs[i : i + size] for i in range(0, len(specs), size)]
    answers = await asyncio.gather(
        *(_ask_fitted(batch, code, model, ledger, budget) for batch in batches)
    )
    proposals: dict[str, list[str]] = {}
    for answer in answers:
        proposals.update(answer)
    result = []
    for spec in specs:
        requests = proposals.get(spec.target)
        if requests:
            ledger.contributed("requests")
            spec = spec.model_copy(update={"requests": requests})
        result.append(spec)
    return result


async def _ask_fitted(
    batch: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger, budget: ContextBudget
) -> dict[str, list[str]]:
    """The answer for ``batch`` with as much documentation as the context holds; halves
    where even none fits (as for descriptions)."""

    def prompt(chars: int) -> list[Message]:
        return _prompt(batch, code, chars)

    chars = fitted_doc(prompt, DOC_CHARS, budget)
    if chars >= 0:
        return await _ask(batch, model, ledger, prompt(chars))
    if len(batch) == 1:
        ledger.unfit("tool_requests", f"requests: {batch[0].target}", budget)
        return {}
    half = len(batch) // 2
    first = await _ask_fitted(batch[:half], code, model, ledger, budget)
    return {**first, **await _ask_fitted(batch[half:], code, model, ledger, budget)}


def _prompt(batch: list[ToolSpec], code: CodeReport, chars: int) -> list[Message]:
    docs = {c.target: c.doc for c in code.candidates}
    tools = [
        {
            "target": spec.target,
            "name": spec.name,
            "description": spec.description,
            "documentation": (docs.get(spec.target) or "")[:chars],
            "parameters": [p.name for p in spec.parameters],
            "example_calls": [e.arguments for e in spec.examples[:EXAMPLES]],
        }
        for spec in batch
    ]
    return render("requests", tools=json.dumps(tools, indent=1, default=str))


async def _ask(
    batch: list[ToolSpec], model: Model, ledger: Ledger, messages: list[Message]
) -> dict[str, list[str]]:
    answer = await ledger.ask(
        model,
        messages,
        OutputSchema(
            name="tool_requests",
            json_schema=requests_schema(batch),
            min_tokens=TOKENS_PER_REQUESTS * len(batch) // 2,  # as for descriptions
        ),
    )
    if answer is None:
        return {}
    items = answer.get("tools")
    if not isinstance(items, list):
        ledger.rejected("example requests without a list of tools")
        return {}
    wanted = {spec.target for spec in batch}
    proposals: dict[str, list[str]] = {}
    for item in items:
        target = item.get("target") if isinstance(item, dict) else None
        if not isinstance(item, dict) or target not in wanted or target in proposals:
            ledger.rejected(f"example requests for an unknown or repeated tool: {target!r}")
            continue
        requests = _requests(item.get("requests"))
        if requests:
            proposals[str(target)] = requests
        else:
            ledger.rejected(f"{target}: example requests are not 1 to {MAX_REQUESTS} strings")
    return proposals


def _requests(value: JSON) -> list[str]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_REQUESTS:
        return []
    if not all(isinstance(v, str) and v.strip() and len(v) <= MAX_CHARS for v in value):
        return []
    return clean_requests([str(v) for v in value])


def requests_schema(batch: list[ToolSpec]) -> dict[str, JSON]:
    """The answer's JSON schema: one {target, requests} per tool."""
    requests: JSON = {
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": MAX_CHARS},
        "minItems": 1,
        "maxItems": MAX_REQUESTS,
    }
    return per_tool_schema(batch, {"requests": requests})
