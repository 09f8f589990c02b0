"""Protocol checks: what the MCP specification demands of a server's listings.

A generated server must answer ``initialize`` (2025-11-25, legacy) and ``server/discover``
(2026-07-28) eras alike, publish valid JSON Schemas, and use valid tool names; its resources
need absolute, unique URIs, names and MIME types, its prompts unique names, and both must be
the ones its ``documents.json`` lists. Anything else is ``mcp_spec_violation``: a bug in the
generator, never shipped.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

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


def documents_problems(
    resources: list[Any], templates: list[Any], prompts: list[Any], manifest: dict[str, Any]
) -> list[str]:
    """Every way the ``resources/list``, ``resources/templates/list`` and ``prompts/list``
    answers break the specification or differ from ``manifest`` (``documents.json``)."""
    problems = []
    uris = [str(resource.uri) for resource in resources]
    for resource, uri in zip(resources, uris, strict=True):
        if not urlsplit(uri).scheme:
            problems.append(f"resource URI {uri!r} is not absolute")
        if not resource.name:
            problems.append(f"resource {uri!r} has no name")
        if not resource.mime_type:
            problems.append(f"resource {uri!r} has no MIME type")
    problems += [f"duplicate resource URI {uri!r}" for uri in _repeated(uris)]
    names = [prompt.name for prompt in prompts]
    problems += [f"duplicate prompt name {name!r}" for name in _repeated(names)]
    for prompt in prompts:
        if not prompt.name:
            problems.append("a prompt has no name")
        problems += [
            f"prompt {prompt.name!r} has an argument without a name"
            for argument in prompt.arguments or []
            if not argument.name
        ]
    expected_uris = sorted(str(r["uri"]) for r in manifest.get("resources", []))
    if sorted(uris) != expected_uris:
        problems.append(f"lists resources {sorted(uris)}, generated {expected_uris}")
    expected_names = sorted(str(p["name"]) for p in manifest.get("prompts", []))
    if sorted(names) != expected_names:
        problems.append(f"lists prompts {sorted(names)}, generated {expected_names}")
    patterns = [str(template.uri_template) for template in templates]
    if manifest.get("work_template") and manifest["work_template"] not in patterns:
        problems.append(f"no resource template {manifest['work_template']!r} for work files")
    return problems


def _repeated(values: list[str]) -> list[str]:
    seen: set[str] = set()
    repeated = []
    for value in values:
        if value in seen and value not in repeated:
            repeated.append(value)
        seen.add(value)
    return repeated
