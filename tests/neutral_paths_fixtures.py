"""A FastMCP server whose tools report where it runs (cwd, HOME, the temporary directory,
what /proc shows), and its registry record: what a client could learn of the host's paths."""

from __future__ import annotations

import sys
from pathlib import Path

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.settings import Settings

WHERE_SCRIPT = '''\
import os
import tempfile
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("where")


@mcp.tool
def where() -> dict[str, str]:
    """Where this server runs, as the code inside sees it."""
    return {
        "cwd": os.getcwd(),
        "home": os.environ["HOME"],
        "tmp": tempfile.gettempdir(),
        "pwd": os.environ.get("PWD", ""),
        "pid1": open("/proc/1/cmdline").read(),
        "self": open("/proc/self/cmdline").read(),
        "file": __file__,
    }


@mcp.tool
def write(name: str) -> str:
    """Write a file in the current directory and return its absolute path."""
    Path(name).write_text("x")
    return str(Path(name).resolve())


@mcp.tool
def fail() -> str:
    """Fail with the current directory in the message."""
    raise ValueError(f"failed in {os.getcwd()} for {__file__}")


if __name__ == "__main__":
    mcp.run(show_banner=False)
'''


def where_record(settings: Settings, name: str = "where") -> ServerRecord:
    """Write the server under ``settings.servers_dir/<name>-v1`` and describe it."""
    output_dir = settings.servers_dir / f"{name}-v1"
    (output_dir / "work").mkdir(parents=True, exist_ok=True)
    (output_dir / "server.py").write_text(WHERE_SCRIPT)
    empty = {"type": "object", "properties": {}}
    named = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    return ServerRecord(
        name=name,
        version_id="v1",
        source=f"test:{name}",
        output_dir=output_dir,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
        tools=[
            ToolRecord(
                name=t, description=t, target=f"where:{t}", input_schema=s, definition_hash=t
            )
            for t, s in (("where", empty), ("write", named), ("fail", empty))
        ],
    )
