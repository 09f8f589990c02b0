"""convert_repo's repo_url (metaserver/server/conversion_tools.py): passed to the pipeline for
a paper, refused like the command line's --repo-url before any conversion starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError

from metaserver.contracts import ConversionReport
from metaserver.server.app import build_server
from metaserver.settings import Settings


async def test_repo_url_reaches_the_conversion_and_a_bad_one_is_refused_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast_settings(tmp_path / "home")
    paper = tmp_path / "paper.md"
    paper.write_text("# A paper\n\nCode: https://github.com/example/beta\n")
    (tmp_path / "beta").mkdir()
    asked: list[tuple[str, str | None]] = []

    async def fake_convert(
        source: str, *, settings: Settings, repo_url: str | None = None, **_: Any
    ) -> ConversionReport:
        asked.append((source, repo_url))
        register_fake(settings, "beta")
        return ConversionReport(server="beta", source=source, status="success", tools_passed=5)

    monkeypatch.setattr("metaserver.pipeline.convert", fake_convert)
    async with Client(build_server(settings)) as client:
        tool = next(t for t in await client.list_tools() if t.name == "convert_repo")
        described = tool.input_schema["properties"]["repo_url"]
        assert {"type": "string"} in described["anyOf"] and "paper" in described["description"]

        done = await client.call_tool(
            "convert_repo", {"source": str(paper), "repo_url": str(tmp_path / "beta")}
        )
        assert done.data["status"] == "success"
        assert asked == [(str(paper), str(tmp_path / "beta"))]

        refusals = {
            # Not a paper: repo_url has nothing to replace.
            "applies only to a paper SOURCE": {"source": "pypi:beta", "repo_url": "pypi:x"},
            # A paper that is not there.
            "is not a file": {"source": str(tmp_path / "gone.pdf"), "repo_url": "pypi:x"},
            # A repo_url that is no SOURCE at all.
            "--repo-url (repo_url): SOURCE is not": {"source": str(paper), "repo_url": "./nowhere"},
        }
        for message, arguments in refusals.items():
            with pytest.raises(ToolError) as caught:
                await client.call_tool("convert_repo", arguments)
            assert message in str(caught.value)
            assert str(settings.home) not in str(caught.value)
    assert len(asked) == 1  # no refused call reached the pipeline
