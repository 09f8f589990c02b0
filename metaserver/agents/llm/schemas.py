"""The answer schema of the agents that answer once per tool of a batch (descriptions,
example requests): ``{"tools": [{"target": <one of the batch>, ...fields}]}``, closed."""

from __future__ import annotations

from metaserver.contracts import JSON, ToolSpec


def per_tool_schema(batch: list[ToolSpec], fields: dict[str, JSON]) -> dict[str, JSON]:
    """One object per tool of ``batch``: its target and ``fields``, all of them required."""
    return {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "target": {"type": "string", "enum": [s.target for s in batch]},
                        **fields,
                    },
                    "required": ["target", *fields],
                    "additionalProperties": False,
                },
                "maxItems": len(batch),
            }
        },
        "required": ["tools"],
        "additionalProperties": False,
    }
