"""The export's folder name and the runtime files a server needs (the whole change is built
from a real conversion in test_export_pipeline.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import metaserver.agents.generate as generate
from metaserver.agents.generate.render import RUNTIME_SOURCE, render_script_tool
from metaserver.contracts import ScriptTarget, ToolSpec
from metaserver.export.tree import (
    FOLDERS,
    choose_folder,
    portable_server,
    runtime_modules,
    without_credentials,
)


def test_the_folder_is_mcp_unless_the_repository_uses_the_name(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    assert choose_folder(tmp_path) == "mcp"
    (tmp_path / "MCP").mkdir()  # taken on a case-insensitive file system too
    assert choose_folder(tmp_path) == "mcp_server"
    (tmp_path / "mcp_server.py").write_text("")  # a module of that name shadows a folder
    assert choose_folder(tmp_path) == "mcp-server"
    for name in FOLDERS:
        (tmp_path / name).mkdir(exist_ok=True)
    assert choose_folder(tmp_path) == "mcp_server2"


def _server(tmp_path: Path, source: str) -> Path:
    shutil.copytree(RUNTIME_SOURCE, tmp_path / "metaserver_runtime")
    (tmp_path / "server.py").write_text(source)
    return tmp_path


def test_only_the_runtime_modules_the_server_imports_are_vendored(tmp_path: Path) -> None:
    server = _server(tmp_path, "from metaserver_runtime import HandleTable, invoke\n")
    wanted = {path.removeprefix("metaserver_runtime/") for path in runtime_modules(server)}
    # __init__ imports call, codecs, decode and handles, which import the rest of these.
    assert {"__init__.py", "call.py", "codecs.py", "decode.py", "handles.py"} <= wanted
    assert {"domain.py", "protocols.py", "expressions.py", "file_args.py"} <= wanted
    assert not {"scripts.py", "notebooks.py", "notebook_runner.py", "phash.py"} & wanted


def test_a_notebook_server_brings_the_runner_it_starts_by_file_name(tmp_path: Path) -> None:
    server = _server(
        tmp_path,
        "from metaserver_runtime import invoke\n"
        "from metaserver_runtime.notebooks import run_notebook\n",
    )
    wanted = {path.removeprefix("metaserver_runtime/") for path in runtime_modules(server)}
    # notebooks.py imports phash and scripts; it starts notebook_runner.py by its path.
    assert {"notebooks.py", "notebook_runner.py", "phash.py", "scripts.py"} <= wanted


def test_a_server_that_imports_no_runtime_vendors_none(tmp_path: Path) -> None:
    server = _server(tmp_path, "import json\n")
    assert runtime_modules(server) == set()


def test_the_runtime_the_servers_own_tests_import_is_vendored(tmp_path: Path) -> None:
    server = _server(tmp_path, "import json\n")
    (server / "tests").mkdir()
    template = Path(generate.__file__).parent / "templates" / "test_tools.py"
    shutil.copy(template, server / "tests" / "test_tools.py")
    wanted = {path.removeprefix("metaserver_runtime/") for path in runtime_modules(server)}
    assert {"__init__.py", "codecs.py"} <= wanted  # its replay reads an array's shape so


def test_a_flat_layout_gets_a_folder_name_that_is_no_identifier(tmp_path: Path) -> None:
    assert choose_folder(tmp_path, importable=False) == "mcp-server"
    (tmp_path / "mcp-server").mkdir()
    assert choose_folder(tmp_path, importable=False) == "mcp-server-2"


def test_a_script_tools_path_leads_into_the_repository_the_folder_is_in(tmp_path: Path) -> None:
    script = ScriptTarget(mode="path", prog="count", path="scripts/count.py")
    spec = ToolSpec(
        name="count",
        description="Count words.",
        target="scripts/count.py",
        parameters=[],
        kind="script",
        script=script,
    )
    home_copy = tmp_path / "home" / "workspaces" / "pkg-1"
    rendered = render_script_tool(spec, home_copy)
    portable = portable_server(rendered, home_copy, [spec])
    assert str(home_copy) not in portable
    compile(portable, "server.py", "exec")
    launch = re.search(r"_run_script\(\n\s+(\{.*?\}),\n", portable)
    assert launch is not None
    repo = tmp_path / "clone"
    namespace = {"Path": Path, "__file__": str(repo / "mcp" / "server.py")}
    value = eval(launch.group(1), namespace)
    assert value["path"] == str((repo / "scripts" / "count.py").resolve())


def test_no_credential_of_the_source_goes_into_the_change() -> None:
    source = "https://user:s3cret@example.org/calc.git"
    data = f'"""Source: {source} @ abc"""\n'.encode()
    hidden = without_credentials(data, source)
    assert b"s3cret" not in hidden and b"example.org/calc.git" in hidden
    plain = b"Source: https://example.org/calc.git"
    assert without_credentials(plain, "https://example.org/calc.git") == plain
