"""No path of the home in what a converted repository's tool can read and return (issue 28):
its module's file, its code objects, a traceback, its environment and directory, and every
file of its server folder, environment and work directory, compiled bytecode and the
operator's README and mcp.json included. And what still names it: the mount table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backends import require_backend
from leak_fixtures import make_peek_repo, mounts_record

from metaserver.children.pool import ChildPool
from metaserver.pipeline import convert
from metaserver.registry.store import Registry
from metaserver.settings import Settings

pytestmark = pytest.mark.integration


def _homes(home: Path) -> set[str]:
    return {str(home), str(home.resolve())}


async def test_no_tool_result_names_the_home(tmp_path: Path) -> None:
    require_backend("bwrap")
    home = tmp_path / "home-of-peek"
    settings = Settings(home=home, sandbox={"backend": "bwrap"})
    report = await convert(str(make_peek_repo(tmp_path / "peekpack")), settings=settings)
    assert report.status == "success", report.failure
    record = Registry(settings.registry_path).resolve(report.server)
    server_dir = record.output_dir
    # The operator's files do name the home: that is what a tool must not read.
    assert str(home) in (server_dir / "mcp.json").read_text()
    assert str(home) in (server_dir / "README.md").read_text()
    pyc = next(record.venv.glob("lib/python*/site-packages/peekpack/__pycache__/*.pyc"))
    assert str(home).encode() not in pyc.read_bytes()  # compiled at the home, named /venv
    pool = ChildPool(settings)
    seen: dict[str, object] = {}
    try:
        for tool in record.tools:
            target = tool.target.rpartition(":")[2]
            searched = {"text": str(home)} if target == "files_containing" else {}
            result = await pool.call(record, tool.name, searched)
            assert not result.is_error, (target, result.content)
            seen[target] = result.structured_content
        # A search that finds: the fixture's search reads what it says it does.
        probe = await pool.call(record, _tool(record, "files_containing"), {"text": "peekpack"})
    finally:
        await pool.close()
    assert set(seen) == {
        "module_file", "code_file", "traceback_text", "process_view", "files_containing"
    }  # fmt: skip
    found = (probe.structured_content or {})["result"]
    assert any(p.startswith("/venv/") and p.endswith(".pyc") for p in found), found
    assert "/server/tools.json" in found
    assert seen["files_containing"] == {"result": []}, seen["files_containing"]
    view = json.loads((seen["process_view"] or {})["result"])  # type: ignore[index]
    assert view["prefix"] == "/venv" and view["main"] == "/server/server.py"
    assert (seen["code_file"] or {})["result"].startswith("/venv/")  # type: ignore[union-attr]
    text = json.dumps(seen)
    for path in _homes(home):
        assert path not in text, (path, text)


def _tool(record: object, target: str) -> str:
    tools = getattr(record, "tools", [])
    return next(t.name for t in tools if t.target.endswith(f":{target}"))


@pytest.mark.xfail(
    strict=True,
    reason="the kernel writes each bind mount's source directory, as a path within its file "
    "system, into /proc/<pid>/mountinfo for any reader; bwrap can mask a /proc file only "
    "for its own setup process (pid 1), not the server (pid 2), its threads or children; "
    "the field is the path from the source file system's root, so neither a neutral bind "
    "nor a tmpfs over /proc hides it; an overlay re-roots the read-only trees but not the "
    "writable work/, and every tree stays bound at its own path too, which is its mount "
    "point field (ARCHITECTURE.md decision 28)",
)
async def test_the_mount_table_names_no_path_of_the_home(tmp_path: Path) -> None:
    require_backend("bwrap")
    home = tmp_path / "home-of-mounts"
    settings = Settings(home=home, sandbox={"backend": "bwrap"})
    record = mounts_record(settings)
    pool = ChildPool(settings)
    try:
        result = await pool.call(record, "mounts", {})
    finally:
        await pool.close()
    assert not result.is_error, result.content
    text = json.dumps(result.structured_content)
    assert "/proc" in text  # the table was read
    for path in _homes(home):
        assert path not in text
