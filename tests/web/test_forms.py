"""The try-it form follows the schema and the proven arguments; results render by kind."""

from __future__ import annotations

import base64
from pathlib import Path

import mcp_types
from png_images import gradient, png

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.web.forms import result_view, try_form

HOME = Path("/srv/metaserver-home")


def _record(tool: ToolRecord) -> ServerRecord:
    return ServerRecord(
        name="pack",
        version_id="v1",
        source="file:///home/someone/pack",
        output_dir=HOME / "servers" / "pack-v1",
        python_path=Path("/usr/bin/python3"),
        venv=Path("/venv"),
        generator_version="test",
        tools=[tool],
    )


def test_fields_follow_the_schema_and_hold_the_proven_call() -> None:
    tool = ToolRecord(
        name="scale",
        description="Scale values.",
        target="pack:scale",
        definition_hash="x",
        input_schema={
            "type": "object",
            "properties": {
                "values": {"type": "array", "items": {"type": "number"}},
                "factor": {"type": ["number", "null"], "default": 2},
                "mode": {"enum": ["up", "down"]},
                "label": {"type": "string", "description": "a <b>label"},
                "strict": {"type": "boolean"},
            },
            "required": ["values"],
        },
        evidence={"arguments": {"values": [1, 2], "mode": "down"}, "check": "no-error"},
    )
    form = try_form(_record(tool), tool, HOME)
    assert 'name="values" data-type="json" id="arg-values" required' in form
    assert "[\n 1,\n 2\n]</textarea>" in form
    assert 'name="factor" data-type="number"' in form and 'value="2"' in form
    assert '<option value="&quot;down&quot;" selected>' in form
    assert 'data-type="boolean"' in form and 'data-type="string"' in form
    assert "<b>label" not in form and "a &lt;b&gt;label" in form


def test_results_render_values_tables_images_errors_and_files() -> None:
    records = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="[...]")],
        structured_content={"result": [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}]},
    )
    html = result_view(records, HOME)
    assert "<th>x</th><th>y</th>" in html and "<td>2</td><td>b</td>" in html
    image = base64.b64encode(png(8, 8, gradient)).decode()
    figure = mcp_types.CallToolResult(
        content=[
            mcp_types.ImageContent(type="image", data=image, mime_type="image/png"),
            mcp_types.EmbeddedResource(
                type="resource",
                resource=mcp_types.BlobResourceContents(
                    uri="file:///work/out.csv", mime_type="text/csv", blob="YSxi"
                ),
            ),
        ]
    )
    html = result_view(figure, HOME)
    assert f'src="data:image/png;base64,{image}"' in html
    assert 'download="out.csv" href="data:text/csv;base64,YSxi"' in html
    failed = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text=f"boom in {HOME}/servers/x.py and /etc/x")
        ],
        is_error=True,
    )
    html = result_view(failed, HOME)
    assert 'class="error"' in html and str(HOME) not in html and "/etc/x" not in html
    assert "$METASERVER_HOME/servers/x.py" in html
