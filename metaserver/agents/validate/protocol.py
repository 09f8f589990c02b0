"""Protocol checks: what the MCP specification demands of a server's tool listing.

A generated server must answer ``initialize`` (2025-11-25, legacy) and ``server/discover``
(2026-07-28) eras alike, publish valid JSON Schemas, and use valid tool names. Anything else
is ``mcp_spec_violation``: a bug in the generator, never shipped.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

# MCP 2025-11-25, tools: names SHOULD be 1-128 characters of A-Z a-z 0-9 _ - .
TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def listing_problems(tools: list[Any]) -> list[str]:
    """Every way a ``tools/list`` answer breaks the specification (empty when it does not)."""
    problems = []
    seen: set[str] = set()
    for tool in tools:
        name = tool.name
        if not TOOL_NAME.match(name):
            problems.append(f"invalid tool name {name!r}")
        if name in seen:
            problems.append(f"duplicate tool name {name!r}")
        seen.add(name)
        problems += _schema_problems(name, "input", tool.input_schema, must_be_object=True)
        if tool.output_schema is not None:
            problems += _schema_problems(name, "output", tool.output_schema, must_be_object=True)
    return problems


def _schema_problems(
    name: str, kind: str, schema: dict[str, Any], must_be_object: bool
) -> list[str]:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return [f"{name}: invalid {kind} schema: {exc.message}"]
    if must_be_object and schema.get("type") != "object":
        return [f"{name}: {kind} schema is not an object schema"]
    return []
