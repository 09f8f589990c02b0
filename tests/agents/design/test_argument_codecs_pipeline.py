"""Arguments as scientists pass them, through MCP (issue 27): an integrand written as an
expression, set literals read as written and decoded as sets, sets by annotation, a file-reading
function proven on the data file the package ships (and fed content, bytes, work:// paths),
and untyped parameters typed by their default (issue 28)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from codec_fixtures import make_argument_repo

from metaserver.children.oneshot import call_tool
from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_functions_sets_and_untyped_parameters_through_mcp(tmp_path: Path) -> None:
    repo = make_argument_repo(tmp_path / "argpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    for name, arguments, expected in [
        ("common", {"first": ["CO2", "H2O", "O2"], "second": ["H2O", "N2", "O2"]}, ["H2O", "O2"]),
        ("union_size", {"first": ["a", "b"], "second": ["b", "c"]}, 3),
        ("count_lines", {"fname": "argpack/data/sample.txt"}, 3),  # the shipped data file
    ]:
        tool = tools[name]
        assert tool.status == "passed", (name, tool.error)
        assert tool.evidence is not None and tool.evidence.check == "expected-value", name
        assert (tool.evidence.arguments, tool.evidence.expected) == (arguments, expected)
    assert tools["integrate"].status == "passed", tools["integrate"].error
    # No example names a file: the CSV the repository ships for its tests proves the reader.
    sums = tools["column_sums"]
    assert sums.status == "passed", sums.error
    assert sums.evidence is not None and sums.evidence.arguments == {
        "fname": "tests/data/numbers.csv"
    }
    assert sums.evidence.result == {"a": 4.0, "b": 6.5}

    document = json.loads((Path(str(report.output_dir)) / "tools.json").read_text())
    specs = {t["target"].rpartition(":")[2]: t for t in document["tools"]}
    codecs = {t: {p["name"]: p["codec"] for p in s["parameters"]} for t, s in specs.items()}
    assert codecs["integrate"]["f"] == "expression:x@argpack"
    assert codecs["common"] == {"first": "set", "second": "set"}  # by its set literals
    assert codecs["union_size"] == {"first": "set", "second": "frozenset"}
    assert codecs["count_lines"] == {"fname": "file"}
    shipped = Path(str(report.output_dir)) / "work" / "argpack" / "data" / "sample.txt"
    assert shipped.read_text().count("H 0") == 2
    assert not shipped.stat().st_mode & 0o222  # read-only: no run changes the evidence
    factor = next(p for p in specs["scale"]["parameters"] if p["name"] == "factor")
    assert factor["json_schema"]["type"] == "number"

    # Through the registered, sandboxed server.
    name = tools["integrate"].name
    ok, result = await call_tool(settings, report.server, name, {"f": "exp(-x**2)", "a": 0, "b": 3})
    assert ok, result
    assert result == pytest.approx(0.8862, abs=1e-3)  # sqrt(pi)/2
    ok, result = await call_tool(
        settings, report.server, name, {"f": "x**2 if x < 1 else 1", "a": 0, "b": 2}
    )
    assert ok and result == pytest.approx(1 / 3 + 1, abs=1e-3)
    ok, error = await call_tool(
        settings, report.server, name, {"f": "__import__('os').getcwd()", "a": 0, "b": 1}
    )
    assert not ok and "attribute access reaches only" in str(error)
    ok, result = await call_tool(
        settings, report.server, tools["common"].name, {"first": ["a", "b"], "second": ["b"]}
    )
    assert ok and result == ["b"]
    ok, error = await call_tool(
        settings, report.server, tools["scale"].name, {"values": [1], "factor": "abc"}
    )
    assert not ok  # a string no longer reaches a parameter whose default is a number

    # A file by its content, its bytes, or its work:// path.
    lines = tools["count_lines"].name
    for given, count in [
        ({"content": "a\n\nb\nc\n", "name": "three.txt"}, 3),
        ({"base64": base64.b64encode(b"x\ny\n").decode(), "name": "two.txt"}, 2),
        ("work://argpack/data/sample.txt", 3),
        (f"work://{report.server}/argpack/data/sample.txt", 3),
    ]:
        ok, result = await call_tool(settings, report.server, lines, {"fname": given})
        assert ok and result == count, (given, result)
    ok, error = await call_tool(settings, report.server, lines, {"fname": "/etc/hostname"})
    assert not ok and "outside the server's work directory" in str(error)
