"""The README, tutorials and paper of a repository as documents, and their prompts."""

from __future__ import annotations

import json
from pathlib import Path

from metaserver.agents.generate.documents import (
    MANIFEST,
    MAX_DOCUMENT_CHARS,
    collect,
    notebook_markdown,
    write_documents,
)
from metaserver.contracts import NotebookCell, NotebookTarget, Parameter, ToolSpec

MEAN = ToolSpec(
    name="mean",
    description="The mean of values.\nMore.",
    target="stats.core:mean",
    parameters=[
        Parameter(name="values", kind="positional_or_keyword", json_schema={"type": "array"}),
    ],
)
UNUSED = ToolSpec(name="median", description="", target="stats.core:median", parameters=[])
NOTEBOOK = ToolSpec(
    name="walkthrough",
    description="Runs the walkthrough.",
    target="tutorials/walkthrough.ipynb",
    kind="notebook",
    parameters=[
        Parameter(
            name="n",
            kind="keyword_only",
            json_schema={"type": "integer"},
            required=False,
            default=3,
        )
    ],
    notebook=NotebookTarget(
        path="tutorials/walkthrough.ipynb", cells=[NotebookCell(cell=1, source="n = 3")]
    ),
)


def repository(root: Path) -> Path:
    (root / "README.md").write_text("# stats\n\nSmall statistics.\n")
    (root / "README.rst").write_text("stats\n=====\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(
        "# Guide\n\nAverages in one call.\n\n```python\nmean([1, 2])\n```\n"
    )
    (root / "docs" / "changes.md").write_text("# Changes\n\nNo code here.\n")
    (root / "docs" / "_build").mkdir()
    (root / "docs" / "_build" / "copy.md").write_text("```\nmean()\n```\n")
    (root / "tutorials").mkdir()
    cells = [
        {"cell_type": "markdown", "source": ["# Walkthrough\n", "\n", "Step by step."]},
        {"cell_type": "code", "source": "n = 3", "outputs": [{"text": "ignored"}]},
        {"cell_type": "raw", "source": "skipped"},
    ]
    (root / "tutorials" / "walkthrough.ipynb").write_text(json.dumps({"cells": cells}))
    return root


def test_notebooks_render_as_markdown_with_fenced_code(tmp_path: Path) -> None:
    path = repository(tmp_path) / "tutorials" / "walkthrough.ipynb"
    assert notebook_markdown(path) == "# Walkthrough\n\nStep by step.\n\n```python\nn = 3\n```\n"
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert notebook_markdown(tmp_path / "broken.ipynb") == ""


def test_readme_tutorials_and_paper_become_documents(tmp_path: Path) -> None:
    root = repository(tmp_path)
    documents, prompts = collect(root, "stats", [MEAN, UNUSED, NOTEBOOK], paper="A Paper\n\nText")
    by_uri = {d.uri: d for d in documents}
    assert list(by_uri) == [
        "doc://stats/readme",
        "doc://stats/paper",
        "doc://stats/tutorials/tutorials-walkthrough",  # a notebook tool's notebook first
        "doc://stats/tutorials/docs-guide",
    ]
    assert by_uri["doc://stats/readme"].path == "README.md"  # markdown before rst
    assert by_uri["doc://stats/paper"].title == "A Paper"
    walkthrough, guide = prompts
    # The notebook's prompt names its tool with parameters; the guide's the callable it shows.
    assert walkthrough.tools == ["walkthrough"]
    assert "`walkthrough`(n: integer = 3): Runs the walkthrough." in walkthrough.text
    assert guide.tools == ["mean"] and "Averages in one call." in guide.text
    assert "doc://stats/tutorials/docs-guide" in guide.text


def test_documents_are_capped_and_written_with_a_manifest(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    root = repository(tmp_path / "repo")
    (root / "README.md").write_text("x" * (MAX_DOCUMENT_CHARS + 10))
    documents, prompts = collect(root, "stats", [MEAN], paper=None)
    assert documents[0].text.endswith("[... 10 more characters not served]\n")
    server = tmp_path / "srv"
    write_documents(server, "stats", documents, prompts)
    manifest = json.loads((server / MANIFEST).read_text())
    assert manifest["work_template"] == "work://stats/{path*}"
    for resource in manifest["resources"]:
        text = (server / resource["file"]).read_text()
        assert resource["size"] == len(text.encode()) and resource["mime_type"] == "text/markdown"
    assert [p["name"] for p in manifest["prompts"]] == [p.name for p in prompts]
    # Rewriting drops documents that are gone.
    write_documents(server, "stats", documents[:1], [])
    assert len(list((server / "documents").glob("*.md"))) == 1
