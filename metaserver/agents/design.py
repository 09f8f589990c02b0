"""Design stage: choose the callables that become tools, and name and describe them.

Deterministic: ranking prefers what can be proven (a doctest with an expected value), then
what is documented and exported. An LLM may refine names and descriptions later; it never
changes which callable a tool is bound to.
"""

from __future__ import annotations

import re

from metaserver.contracts import JSON, Candidate, CodeReport, Example, Parameter, ToolSpec

MAX_DESCRIPTION = 1024
_NAME_OK = re.compile(r"[^A-Za-z0-9_-]+")
_DOCTEST = re.compile(r"^[ \t]*>>>", re.M)
_EXAMPLES_HEADING = re.compile(r"(?:^|\n)\s*Examples?\s*:?\s*(?:\n\s*-+\s*)?$")


def design(report: CodeReport, max_tools: int) -> list[ToolSpec]:
    """Up to ``max_tools`` ToolSpecs, best candidates first, with unique names."""
    ranked = sorted(report.candidates, key=_rank)
    specs: list[ToolSpec] = []
    used: set[str] = set()
    for candidate in ranked:
        if len(specs) >= max_tools:
            break
        name = _unique(_NAME_OK.sub("_", candidate.name).strip("_") or "tool", used)
        specs.append(
            ToolSpec(
                name=name,
                description=_description(candidate),
                target=candidate.target,
                parameters=candidate.parameters,
                examples=candidate.examples[:3] or [synthesise_example(candidate.parameters)],
            )
        )
    return specs


def _rank(candidate: Candidate) -> tuple[int, str]:
    score = 0
    if any(e.has_expected for e in candidate.examples):
        score += 8
    if candidate.examples:
        score += 4
    if candidate.in_all:
        score += 2
    if candidate.top_level:
        score += 1
    if candidate.summary:
        score += 1
    return (-score, candidate.name)


def _unique(name: str, used: set[str]) -> str:
    # MCP tool names are at most 64 characters; keep room for a "_NNN" suffix.
    name = name[:64]
    base, n = name[:60], 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def _description(candidate: Candidate) -> str:
    text = candidate.doc.strip() or candidate.summary or f"Call {candidate.target}."
    # Keep the prose, not the doctest session: agents read descriptions, not transcripts.
    # Sessions may be indented (an "Examples:" section) or be the whole docstring.
    prose = _DOCTEST.split(text, maxsplit=1)[0].strip()
    prose = _EXAMPLES_HEADING.sub("", prose).strip()
    return (prose or f"Call {candidate.target}.")[:MAX_DESCRIPTION]


def synthesise_example(parameters: list[Parameter]) -> Example:
    """Arguments that fit the schema, for a callable whose sources show no call."""
    arguments: dict[str, JSON] = {}
    for parameter in parameters:
        if parameter.required:
            arguments[parameter.name] = _value_for(parameter.name, parameter.json_schema)
    return Example(arguments=arguments, origin="synthesised")


def _value_for(name: str, schema: dict[str, JSON]) -> JSON:
    if schema.get("enum"):
        return schema["enum"][0]
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"] or schema["anyOf"]
        return _value_for(name, options[0])
    kind = schema.get("type")
    by_type: dict[str, JSON] = {
        "integer": 2,
        "number": 1.5,
        "string": "abc",
        "boolean": True,
        "null": None,
        "object": {},
    }
    if kind == "array" and "prefixItems" in schema:  # a tuple: one value per position
        return [_value_for(name, item) for item in schema["prefixItems"]]
    if kind == "array":
        return [_value_for(name, schema.get("items", {"type": "integer"})) for _ in range(3)]
    if isinstance(kind, str) and kind in by_type:
        return by_type[kind]
    lowered = name.lower()
    if any(word in lowered for word in ("iter", "seq", "list", "items", "values", "data")):
        return [1, 2, 3]
    if lowered in ("n", "k", "size", "count", "num", "number", "width", "length"):
        return 2
    if lowered == "s" or any(word in lowered for word in ("text", "string", "name", "word")):
        return "abc"
    return 1
