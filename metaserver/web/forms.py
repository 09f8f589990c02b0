"""The try-it form a tool's input schema makes, and a call's result as HTML: text, tables
for records, images, and files to download."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import mcp_types

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.web.markup import code, shown, table

_MIME = re.compile(r"^[\w.+-]+/[\w.+-]+$")
_MAX_ROWS = 200


def try_form(record: ServerRecord, tool: ToolRecord, home: Path) -> str:
    """A form with one field per parameter, filled with the arguments that proved the tool
    (else the schema's defaults); ``static/page.js`` sends it as JSON and shows the result."""
    properties: dict[str, Any] = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required") or [])
    proven = (tool.evidence or {}).get("arguments") or {}
    fields = [
        _field(name, schema if isinstance(schema, dict) else {}, name in required, proven, home)
        for name, schema in properties.items()
    ]
    if not fields:
        fields = ['<p class="empty">This tool takes no arguments.</p>']
    return (
        f'<form class="try" data-server="{html.escape(record.name)}" '
        f'data-version="{html.escape(record.version_id)}" data-tool="{html.escape(tool.name)}">'
        + "".join(fields)
        + '<button type="submit">Call</button></form><div class="result" id="result"></div>'
    )


def _field(
    name: str, schema: dict[str, Any], required: bool, proven: dict[str, Any], home: Path
) -> str:
    enum = schema.get("enum") if isinstance(schema.get("enum"), list) else None
    kind = "enum" if enum else _kind(schema)
    value = proven.get(name, schema.get("default"))
    label = html.escape(name) + (" *" if required else "")
    about = schema.get("description") or ""
    data_type = "json" if enum else kind
    attributes = f'name="{html.escape(name)}" data-type="{data_type}" id="arg-{html.escape(name)}"'
    if required:
        attributes += " required"
    if enum:
        options = "".join(
            f'<option value="{html.escape(json.dumps(option))}"'
            f"{' selected' if option == value else ''}>{shown(json.dumps(option), home)}</option>"
            for option in enum
        )
        control = f"<select {attributes}>{options}</select>"
    elif kind in ("integer", "number"):
        step = "1" if kind == "integer" else "any"
        shown_value = "" if value is None else html.escape(json.dumps(value))
        control = f'<input type="number" step="{step}" {attributes} value="{shown_value}">'
    elif kind == "boolean":
        chosen = json.dumps(value) if isinstance(value, bool) else ""
        options = "".join(
            f'<option value="{v}"{" selected" if chosen == v else ""}>{v or "-"}</option>'
            for v in ("", "true", "false")
        )
        control = f"<select {attributes}>{options}</select>"
    elif kind == "string":
        text = "" if value is None else str(value)
        control = f'<input type="text" {attributes} value="{shown(text, home)}">'
    else:
        text = "" if value is None else json.dumps(value, indent=1)
        control = (
            f'<textarea rows="3" {attributes} placeholder="JSON">{shown(text, home)}</textarea>'
        )
    hint = f'<span class="hint">{shown(about, home)}</span>' if about else ""
    return f'<label class="field"><span>{label}</span>{control}{hint}</label>'


def _kind(schema: dict[str, Any]) -> str:
    """The field a schema gets: a scalar type's own, else JSON text."""
    kind = schema.get("type")
    if isinstance(kind, list):
        others = [k for k in kind if k != "null"]
        kind = others[0] if len(others) == 1 else None
    return kind if kind in ("integer", "number", "boolean", "string") else "json"


def result_view(result: mcp_types.CallToolResult, home: Path) -> str:
    """A call's result: the error, or the value (a table for records) and each content
    block that is more than the value's text."""
    if result.is_error:
        text = " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))
        return f'<div class="error" id="value">{shown(text or "the tool failed", home)}</div>'
    parts: list[str] = []
    structured = result.structured_content
    if structured is not None:
        value = structured.get("result", structured) if len(structured) == 1 else structured
        parts.append(f'<div id="value" class="value">{value_view(value, home)}</div>')
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            if structured is None:
                parts.append(
                    f'<div id="value" class="value"><pre>{shown(block.text, home)}</pre></div>'
                )
        elif isinstance(block, mcp_types.ImageContent) and _MIME.match(block.mime_type):
            parts.append(
                f'<img class="figure" alt="image result" '
                f'src="data:{block.mime_type};base64,{html.escape(block.data)}">'
            )
        elif isinstance(block, mcp_types.EmbeddedResource):
            parts.append(_resource(block.resource, home))
        elif isinstance(block, mcp_types.ResourceLink):
            parts.append(
                f'<p class="file">file {shown(block.name, home)}: {shown(block.uri, home)}</p>'
            )
    return "".join(parts) or '<p class="empty">The tool returned nothing.</p>'


def value_view(value: Any, home: Path) -> str:
    """A JSON value: a list of records as a table, a flat object as two columns, else JSON."""
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        columns = list(dict.fromkeys(key for row in value[:_MAX_ROWS] for key in row))
        if len(columns) <= 50:
            rows = [
                [_cell(row.get(column), home) for column in columns] for row in value[:_MAX_ROWS]
            ]
            more = len(value) - _MAX_ROWS
            tail = f"<p>and {more} more rows</p>" if more > 0 else ""
            return table(columns, rows, "records") + tail
    if (
        isinstance(value, dict)
        and value
        and all(not isinstance(v, dict | list) for v in value.values())
    ):
        return table(["key", "value"], [[shown(k, home), _cell(v, home)] for k, v in value.items()])
    return code(value, home)


def _cell(value: Any, home: Path) -> str:
    return shown(value if isinstance(value, str) else json.dumps(value), home)


def _resource(
    resource: mcp_types.TextResourceContents | mcp_types.BlobResourceContents, home: Path
) -> str:
    name = shown(str(resource.uri).rsplit("/", 1)[-1] or "file", home)
    mime = resource.mime_type if resource.mime_type and _MIME.match(resource.mime_type) else ""
    if isinstance(resource, mcp_types.BlobResourceContents):
        media = mime or "application/octet-stream"
        return (
            f'<p class="file"><a download="{name}" href="data:{media};base64,'
            f'{html.escape(resource.blob)}">download {name}</a></p>'
        )
    return f'<div class="file"><p>file {name}</p><pre>{shown(resource.text, home)}</pre></div>'
