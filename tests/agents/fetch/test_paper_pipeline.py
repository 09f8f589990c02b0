"""A paper as the source (issue #14), end to end: it converts the repository it names and
keeps its text as the server's ``doc://<server>/paper`` resource."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fixture_repos import make_calc_repo
from paper_fixtures import make_pdf
from test_cli import METASERVER, home_is_empty, run_cli

from metaserver.agents.fetch.candidates import fetch_first
from metaserver.agents.fetch.source import parse_source
from metaserver.children.pool import ChildPool
from metaserver.exceptions import FetchError
from metaserver.pipeline import convert
from metaserver.registry.store import Registry
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_pdf_paper_converts_its_repository_and_serves_its_text(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calcpack")
    # The paper links a public project (no network here) and names the local fixture only
    # through --repo-url: a paper's own file:// links are never followed.
    pdf = make_pdf(
        tmp_path / "paper.pdf",
        ["Calculating with calcpack", "Code: https://github.com/example/calcpack"],
    )
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(pdf), settings=settings, repo_url=f"file://{repo}")

    assert report.status == "success", report.failure
    assert report.source == str(pdf) and report.repository == f"file://{repo}"
    record = Registry(settings.registry_path).resolve(report.server)
    manifest = json.loads((record.output_dir / "documents.json").read_text())
    uris = [r["uri"] for r in manifest["resources"]]
    assert uris[:2] == ["doc://calcpack/readme", "doc://calcpack/paper"]
    # Read through the registered, sandboxed server, as the meta-server forwards it.
    pool = ChildPool(settings)
    try:
        read = await pool.read_resource(record, "doc://calcpack/paper")
    finally:
        await pool.close()
    (content,) = read.contents
    assert "Calculating with calcpack" in content.text  # type: ignore[union-attr]
    assert content.mime_type == "text/markdown"


def test_a_paper_without_links_exits_2_and_leaves_nothing(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "nolinks.pdf", ["A paper about nothing in particular."])
    home = tmp_path / "home"
    result = run_cli(home, "convert", str(pdf))
    assert result.returncode == 2, result.stderr
    assert "links no repository" in result.stderr and "--repo-url" in result.stderr
    assert home_is_empty(home)
    # --repo-url needs a paper; a paper's file:// link is not a repository link.
    (tmp_path / "local.md").write_text(f"# Paper\n\nfile://{tmp_path}\n")
    for args in (["convert", str(tmp_path / "local.md")], ["convert", ".", "--repo-url", "x"]):
        refused = run_cli(home, *args)
        assert refused.returncode == 2, refused.stderr
    assert home_is_empty(home)


@pytest.mark.integration
async def test_a_markdown_paper_converts_through_the_command_line(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calcpack")
    paper = tmp_path / "paper.md"
    paper.write_text("# Calcpack\n\nCode: [calcpack](https://github.com/example/calcpack)\n")
    home = tmp_path / "home"
    result = run_cli(home, "convert", "--json", str(paper), "--repo-url", str(repo))
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["repository"] == str(repo) and report["tools_passed"] >= 3
    paper_file = Path(report["output_dir"]) / "documents" / "001-paper.md"
    assert paper_file.read_text().startswith("# Calcpack")
    # `metaserver run` (what mcp.json starts) serves the resources as they are.
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    transport = StdioTransport(command=METASERVER, args=["run", report["server"]], env=env)
    async with Client(transport, mode="legacy", init_timeout=60, timeout=30) as client:
        listed = {str(r.uri) for r in await client.list_resources()}
        read = await client.read_resource("doc://calcpack/paper")
    assert {"doc://calcpack/readme", "doc://calcpack/paper"} <= listed
    assert read[0].text.startswith("# Calcpack")  # type: ignore[union-attr]


@pytest.mark.integration
async def test_the_first_link_that_fetches_is_converted(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calcpack")
    (tmp_path / "not-git").mkdir()
    settings = Settings(home=tmp_path / "home")
    broken = parse_source(f"file://{tmp_path / 'not-git'}")
    good = parse_source(f"file://{repo}")

    fetched = await fetch_first([broken, good], settings, "t0k3n")

    assert not isinstance(fetched, Exception)
    parsed, workspace = fetched
    assert parsed is good and (workspace.path / "calcpack" / "__init__.py").is_file()
    assert not (settings.staging_dir / "fetch-t0k3n").exists()  # the failed try left nothing
    failed = await fetch_first([broken, broken], settings, "0th3r")
    assert isinstance(failed, FetchError)
    assert str(failed).startswith("no repository the paper links could be fetched")
    assert str(failed).count("does not appear to be a git repository") == 2  # each try
