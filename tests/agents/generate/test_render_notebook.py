"""A rendered notebook tool, served and called through a real MCP client (issue #14)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from png_images import png, stripes

from metaserver.agents.generate.render import generate
from metaserver.children.launch import server_command, stdio_transport
from metaserver.contracts import (
    Environment,
    NotebookCell,
    NotebookTarget,
    Parameter,
    Source,
    ToolSpec,
    Workspace,
)
from metaserver.runtime.phash import png_hash
from metaserver.sandbox import get_sandbox
from metaserver.settings import SandboxSettings

IMAGE = png(40, 30, stripes)
# Stands in for matplotlib.pyplot (not installed here): one open figure, saved as IMAGE.
DRAW = f"""\
import base64, sys, types
pyplot = types.ModuleType("matplotlib.pyplot")
opened = [1]
class Figure:
    def savefig(self, path, format, bbox_inches):
        with open(path, "wb") as handle:
            handle.write(base64.b64decode({base64.b64encode(IMAGE).decode()!r}))
pyplot.get_fignums = lambda: list(opened)
pyplot.figure = lambda number: Figure()
pyplot.close = lambda which: opened.clear()
sys.modules["matplotlib.pyplot"] = pyplot
"""

SPEC = ToolSpec(
    name="powers",
    description="Powers of a base.",
    target="docs/powers.ipynb",
    kind="notebook",
    parameters=[
        Parameter(
            name="base",
            kind="keyword_only",
            json_schema={"type": "integer", "default": 2},
            required=False,
            default=2,
        ),
        # Shadows a name server.py imports: tool bodies must not depend on it.
        Parameter(
            name="Path",
            kind="keyword_only",
            json_schema={"type": "string", "default": "p"},
            required=False,
            default="p",
        ),
    ],
    notebook=NotebookTarget(
        path="docs/powers.ipynb",
        parameters_cell=0,
        cells=[
            NotebookCell(cell=1, source="base = 2"),
            NotebookCell(cell=2, source="print('base', base, Path)\n[base**i for i in range(4)]"),
            NotebookCell(cell=3, source=DRAW),
            NotebookCell(cell=4, source="open('table.csv', 'w').write(f'base,{base}\\n')"),
        ],
    ),
)


@pytest.mark.integration
async def test_a_notebook_tool_returns_cells_and_figures(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Powers\n\nPowers of numbers.\n")
    (tmp_path / "docs").mkdir()
    notebook = {"cells": [{"cell_type": "markdown", "source": ["# Powers tutorial\n"]}]}
    (tmp_path / "docs" / "powers.ipynb").write_text(json.dumps(notebook))
    source = Source(kind="local", location=str(tmp_path), original=str(tmp_path))
    workspace = Workspace(source=source, path=tmp_path, distribution="powers")
    environment = Environment(
        ok=True,
        strategy="requirements+path",
        python="3.11",
        python_path=Path(sys.executable),
        venv=tmp_path / "venv",
        seconds=0.0,
    )
    directory = generate(tmp_path / "srv", "powers", [SPEC], workspace, environment)
    sandbox = get_sandbox(SandboxSettings(backend="process"))
    command = server_command(sandbox, Path(sys.executable), directory, timeout=60)
    client: Client[Any] = Client(
        stdio_transport(command, keep_alive=False), mode="legacy", init_timeout=60, timeout=30
    )
    async with client:
        (tool,) = await client.list_tools()
        assert tool.input_schema["properties"]["base"]["default"] == 2
        raw = await client.call_tool_mcp("powers", {"base": 3, "Path": "q"})
        resources = {str(r.uri): r for r in await client.list_resources()}
        prompts = {p.name: p for p in await client.list_prompts()}
        readme = await client.read_resource("doc://powers/readme")
        prompt = await client.get_prompt("tutorial-docs-powers")
        written = raw.content[-1]
        assert written.type == "resource"
        again = await client.read_resource(str(written.resource.uri))
        with pytest.raises(Exception, match=r"not found|work directory"):
            await client.read_resource("work://powers/..%2F..%2Fserver.py")
    # The README and the notebook's text are resources; the notebook has its prompt.
    assert resources["doc://powers/readme"].mime_type == "text/markdown"
    assert readme[0].text.startswith("# Powers")
    assert "doc://powers/tutorials/docs-powers" in resources
    assert "powers" in (prompts["tutorial-docs-powers"].description or "")
    text = prompt.messages[0].content.text
    assert "`powers`(base: integer = 2" in text and "doc://powers/tutorials/docs-powers" in text
    # The file the run wrote comes back embedded, and can be read again by its URI.
    assert written.resource.text == "base,3\n"
    assert str(written.resource.uri).startswith("work://powers/notebooks/powers-")
    assert again[0].text == "base,3\n"
    assert not raw.is_error, raw.content
    assert raw.structured_content is not None
    result = raw.structured_content["result"]
    cells = {c["cell"]: c for c in result["cells"]}
    assert cells[2]["value"] == [1, 3, 9, 27] and cells[2]["stdout"] == "base 3 q\n"
    assert [(f["cell"], f["hash"]) for f in result["figures"]] == [(3, png_hash(IMAGE))]
    assert (directory / "work" / result["figures"][0]["path"]).is_file()
    text, image, _ = raw.content
    assert text.type == "text" and '"cells"' in text.text
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == IMAGE
