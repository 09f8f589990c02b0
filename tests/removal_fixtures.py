"""A served version whose tool reads its own files mid-call, and the processes around it.

The server imports a module of its own directory only when the test says so (a file in its
``work/``, where it also says the call has started), as a generated server imports a library
lazily: a removal in another process that deletes the directory during
the pause made that import fail (issue 28's soak, 4 of 83 calls).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry
from metaserver.settings import Settings

SERVER_SCRIPT = """\
import asyncio
import sys
from pathlib import Path

from fastmcp import FastMCP

sys.path.insert(0, str(Path(__file__).parent))  # run with -I: its directory is not on the path

mcp = FastMCP("lazy")


@mcp.tool
def ping() -> str:
    return "pong"


@mcp.tool
async def late_import() -> str:
    # Says it has started, then waits for the test's word (a file in work/, bounded).
    work = Path(__file__).parent / "work"
    (work / "started").write_text("")
    for _ in range(1200):
        if (work / "go").exists():
            break
        await asyncio.sleep(0.1)
    import late_module  # from the server's own directory, first imported here

    return late_module.ANSWER


if __name__ == "__main__":
    mcp.run(show_banner=False)
"""
LATE_MODULE = 'ANSWER = "read after the pause"\n'

_SCHEMAS = {
    "ping": {"type": "object", "properties": {}},
    "late_import": {"type": "object", "properties": {}},
}


def register_lazy(settings: Settings, name: str = "lazy", token: str = "0a1b2c3d") -> ServerRecord:
    """Write the server into ``servers/<name>-<token>`` (a conversion's layout) and register
    it; it runs with the project's interpreter, which has fastmcp."""
    output_dir = settings.servers_dir / f"{name}-{token}"
    (output_dir / "work").mkdir(parents=True, exist_ok=True)
    (output_dir / "server.py").write_text(SERVER_SCRIPT)
    (output_dir / "late_module.py").write_text(LATE_MODULE)
    record = ServerRecord(
        name=name,
        version_id=token,
        source=f"test:{name}",
        commit="0" * 40,
        output_dir=output_dir,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
        tools=[
            ToolRecord(
                name=tool,
                description=f"The {tool} tool of a removal test.",
                target=f"lazy:{tool}",
                input_schema=schema,
                definition_hash=tool,
            )
            for tool, schema in _SCHEMAS.items()
        ],
    )
    return Registry(settings.registry_path).register(record).record


def home_env(home: Path) -> dict[str, str]:
    """The environment of a metaserver process on ``home`` (the runner's backend kept)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    return env
