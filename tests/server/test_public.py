"""No host path reaches an MCP client: reports show paths relative to METASERVER_HOME, and
error results carry no interpreter, sys.path entry or other absolute path of the machine."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fixture_repos import make_package_repo

from metaserver.contracts import ConversionReport, Failure, ToolEvidence
from metaserver.server.app import build_server
from metaserver.server.public import public_message, public_report, public_text
from metaserver.settings import Settings

HOME = Path("/srv/data/metaserver")

# Where a host path of this machine would show: the roots the issue found leaking.
_HOST_PATH = re.compile(r"(?<![\w$])/(tmp|root|usr|home|srv|work|opt|proc|etc)/")


def _assert_no_host_path(text: str, home: Path) -> None:
    assert str(home) not in text and str(home.resolve()) not in text
    found = _HOST_PATH.search(text)
    assert found is None, text[max(0, found.start() - 80) : found.end() + 80]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{HOME}/servers/x-1/server.py failed", "$METASERVER_HOME/servers/x-1/server.py failed"),
        (f"{HOME}2/elsewhere", "<path>"),  # not under the home, only alike
        ('File "/usr/lib/python3.11/json/decoder.py", line 3', 'File "<path>", line 3'),
        ("sys.path ['/root/.local/lib', '/tmp/x', '']", "sys.path ['<path>', '<path>', '']"),
        ("PYTHONPATH=/a/b:/c", "PYTHONPATH=<path>:<path>"),
        ("cd ~/secret/x", "cd <path>"),
        # Not host paths: URLs, relative paths, ratios, the home placeholder itself.
        ("see https://example.com/a/b", "see https://example.com/a/b"),
        ("src/pkg/mod.py and 1/2 and I/O", "src/pkg/mod.py and 1/2 and I/O"),
        ("$METASERVER_HOME/servers/x", "$METASERVER_HOME/servers/x"),
        ("the root / alone", "the root / alone"),
    ],
)
def test_public_text_keeps_the_home_relative_and_hides_other_paths(
    text: str, expected: str
) -> None:
    assert public_text(text, HOME) == expected


def test_public_message_cuts_tracebacks_and_bounds_length() -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/runpy.py", line 1, in <module>\n'
        "ValueError: bad value in /tmp/abc/file.txt\n"
    )
    assert public_message(trace, HOME) == "ValueError: bad value in <path>"
    assert public_message("x" * 5000, HOME).endswith(" [truncated]")


def test_public_report_scrubs_every_field_but_the_source() -> None:
    report = ConversionReport(
        server="calc",
        source="/home/user/calc",
        status="failed",
        failure=Failure(type="import_error", detail=f"cannot import {HOME}/env/x.py from /usr/x"),
        tools=[
            ToolEvidence(name="a", target="m:a", status="failed", error="in /opt/py/lib/a.py"),
        ],
        output_dir=f"{HOME}/servers/calc-1",
    ).model_dump(mode="json")
    public = public_report(report, HOME)
    assert public["output_dir"] == "$METASERVER_HOME/servers/calc-1"
    assert public["failure"]["detail"] == "cannot import $METASERVER_HOME/env/x.py from <path>"
    assert public["tools"][0]["error"] == "in <path>"
    assert public["source"] == "/home/user/calc"  # the client's own words
    assert public["server"] == "calc" and public["status"] == "failed"


def _texts(result: mcp_types.CallToolResult | Any) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


@pytest.mark.integration
async def test_tool_errors_carry_no_interpreter_or_sys_path(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    async with Client(build_server(settings), mode="legacy") as client:
        for name, arguments in [
            ("alpha_explode", {"message": "m"}),
            (
                "call_generated",
                {"server": "alpha", "tool": "explode", "arguments": {"message": "m"}},
            ),
        ]:
            result = await client.call_tool(name, arguments, raise_on_error=False)
            text = _texts(result)
            # The child said where it runs; the client hears only that it failed, and how.
            # Its own file: at its neutral path under bwrap (scrubbed as any path outside the
            # home), or in the home under the process backend.
            assert result.is_error
            assert re.search(r"boom: m at (\$METASERVER_HOME/servers/alpha|<path>)", text)
            assert "by <path> on [" in text
            _assert_no_host_path(text, settings.home)


BROKEN_MODULE = """\
import sys

raise ImportError(f"cannot start {__file__} with {sys.executable} on {sys.path}")
"""


@pytest.mark.integration
async def test_a_failing_conversion_reports_no_host_path(tmp_path: Path) -> None:
    """The real pipeline on a package whose import fails naming its file, its interpreter and
    sys.path: the report convert_repo returns and conversion_status repeats names none."""
    repo = make_package_repo(tmp_path / "broken", "brokenpkg", "brokenpkg", BROKEN_MODULE)
    settings = Settings(home=tmp_path / "home")
    async with Client(build_server(settings), mode="legacy", timeout=600) as client:
        result = await client.call_tool("convert_repo", {"source": str(repo)})
        report = result.structured_content or {}
        status = await client.call_tool("conversion_status", {"job_or_source": str(repo)})
    assert report["status"] == "failed" and report["failure"]["type"] == "import_error"
    assert "cannot start $METASERVER_HOME/environments/" in report["failure"]["detail"]
    # sys.path comes last: the probe shortens a long import error, so with a long home (a
    # pytest worker's) it may be cut off before the report is scrubbed; it is checked below
    # only as far as it reached the report.
    # Nothing was generated (the import failed in analysis): no server directory to name.
    assert report["output_dir"] is None
    [kept] = settings.failed_dir.iterdir()  # the report is kept there, nothing else of it
    assert (kept / "report.json").is_file() and not (kept / "server").exists()
    answer = status.structured_content or {}
    assert answer["report"] == {k: v for k, v in report.items() if k != "job"}
    for text in (json.dumps(report), _texts(result), json.dumps(answer), _texts(status)):
        # The source is the client's own path; nothing else of this machine shows.
        _assert_no_host_path(text.replace(str(repo), "SOURCE"), settings.home)
