"""Registered servers' resources and prompts, passed through the meta-server (issue #14).

A real generated server (a notebook tool that writes a file, a README, the notebook as a
tutorial) is registered and served by the meta-server: its documents are listed without
starting it, and reads, prompts and the written file are forwarded to its child.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_children import fast_settings, server_pids
from fastmcp import Client

from metaserver.agents.generate.render import generate
from metaserver.children.pool import ChildPool
from metaserver.contracts import (
    Environment,
    NotebookCell,
    NotebookTarget,
    Parameter,
    Source,
    ToolSpec,
    Workspace,
)
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry
from metaserver.server.app import build_server
from metaserver.server.documents import DirectDocuments
from metaserver.settings import Settings

SPEC = ToolSpec(
    name="table",
    description="Writes a table of squares.",
    target="docs/table.ipynb",
    kind="notebook",
    parameters=[
        Parameter(
            name="n",
            kind="keyword_only",
            json_schema={"type": "integer", "default": 2},
            required=False,
            default=2,
        )
    ],
    notebook=NotebookTarget(
        path="docs/table.ipynb",
        parameters_cell=0,
        cells=[
            NotebookCell(cell=1, source="n = 2"),
            NotebookCell(
                cell=2,
                source="open('squares.csv', 'w').write(''.join(f'{i},{i*i}\\n' for i in range(n)))",
            ),
        ],
    ),
)


def register_generated(settings: Settings, repository: Path) -> ServerRecord:
    (repository / "README.md").write_text("# Squares\n\nTables of squares.\n")
    (repository / "docs").mkdir()
    cells = [{"cell_type": "markdown", "source": "# Squares table\n\nWrites squares."}]
    (repository / "docs" / "table.ipynb").write_text(json.dumps({"cells": cells}))
    source = Source(kind="local", location=str(repository), original=str(repository))
    workspace = Workspace(source=source, path=repository, distribution="squares")
    environment = Environment(
        ok=True,
        strategy="requirements+path",
        python="3.11",
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        seconds=0.0,
    )
    directory = generate(
        settings.servers_dir / "squares-v1", "squares", [SPEC], workspace, environment
    )
    record = ServerRecord(
        name="squares",
        version_id="v1",
        source=str(repository),
        output_dir=directory,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
        tools=[
            ToolRecord(
                name="table",
                description=SPEC.description,
                target=SPEC.target,
                input_schema=SPEC.input_schema,
                definition_hash="x",
            )
        ],
    )
    return Registry(settings.registry_path).register(record).record


@pytest.mark.integration
async def test_resources_and_prompts_pass_through_to_the_child(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    (tmp_path / "repo").mkdir()
    record = register_generated(settings, tmp_path / "repo")
    async with Client(build_server(settings), mode="legacy") as client:
        resources = {str(r.uri): r for r in await client.list_resources()}
        templates = [t.uri_template for t in await client.list_resource_templates()]
        prompts = {p.name: p for p in await client.list_prompts()}
        # Listed from the registry's files: the server has not started.
        assert server_pids(record.output_dir) == []
        assert set(resources) == {"doc://squares/readme", "doc://squares/tutorials/docs-table"}
        assert resources["doc://squares/readme"].name == "squares_readme"
        assert templates == ["work://squares/{path*}"]
        assert set(prompts) == {"squares_tutorial-docs-table"}

        readme = await client.read_resource("doc://squares/readme")
        assert readme[0].text.startswith("# Squares")
        prompt = await client.get_prompt("squares_tutorial-docs-table")
        assert "`table`(n: integer = 2)" in prompt.messages[0].content.text

        called = await client.call_tool_mcp("squares_table", {"n": 3})
        assert not called.is_error, called.content
        written = called.content[-1]
        assert written.type == "resource" and written.resource.text == "0,0\n1,1\n2,4\n"
        again = await client.read_resource(str(written.resource.uri))
        assert again[0].text == "0,0\n1,1\n2,4\n"

        with pytest.raises(Exception, match="squares"):
            await client.read_resource("work://squares/notebooks/missing.csv")
        with pytest.raises(Exception, match=r"[Uu]nknown|not found"):
            await client.read_resource("doc://other/readme")


def fake(settings: Settings, name: str, manifest: dict[str, Any] | None) -> ServerRecord:
    directory = settings.servers_dir / name
    directory.mkdir(parents=True)
    if manifest is not None:
        (directory / "documents.json").write_text(json.dumps(manifest))
    return ServerRecord(
        name=name,
        source="test",
        output_dir=directory,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
    )


async def test_only_uris_that_name_their_server_are_passed_through(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    documents = DirectDocuments(ChildPool(settings), settings.home)
    manifest = {
        "resources": [
            {"uri": "doc://mine/readme", "name": "readme", "mime_type": "text/markdown"},
            {"uri": "doc://other/readme", "name": "stolen"},  # another server's URI
            {"uri": "file:///etc/passwd", "name": "host"},
        ],
        "prompts": [{"name": "tutorial-a", "description": "A"}, {"name": ""}],
        "work_template": "work://other/{path*}",
    }
    documents.mount(fake(settings, "mine", manifest))
    documents.mount(fake(settings, "old", None))  # generated before resources: none
    assert [str(r.uri) for r in await documents._list_resources()] == ["doc://mine/readme"]
    assert await documents._list_resource_templates() == []
    assert [p.name for p in await documents._list_prompts()] == ["mine_tutorial-a"]
    documents.unmount("mine")
    assert await documents._list_resources() == [] and await documents._list_prompts() == []
