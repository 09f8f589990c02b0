"""A FastMCP server whose tool reports what its environment says of paths (``sys.path``,
every ``.pth`` file, every ``direct_url.json``), and its record for a built environment."""

from __future__ import annotations

from metaserver.contracts import Environment
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.settings import Settings

SITE_SCRIPT = '''\
import importlib
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("site")


@mcp.tool
def site_view(module: str = "") -> dict[str, object]:
    """The import path, the .pth files and the install origins this server sees."""
    site = Path(sysconfig.get_paths()["purelib"])
    origins = {}
    for dist in metadata.distributions():
        text = dist.read_text("direct_url.json")
        if text is not None:
            origins[dist.metadata["Name"]] = text
    imported = importlib.import_module(module).__file__ if module else ""
    return {
        "sys_path": sys.path,
        "prefix": sys.prefix,
        "pth": {p.name: p.read_text() for p in site.glob("*.pth")},
        "origins": origins,
        "imported": imported,
    }


if __name__ == "__main__":
    mcp.run(show_banner=False)
'''


def site_record(settings: Settings, environment: Environment, name: str) -> ServerRecord:
    """Write the server under ``settings.servers_dir/<name>-v1``, served from
    ``environment``, and describe it."""
    output_dir = settings.servers_dir / f"{name}-v1"
    (output_dir / "work").mkdir(parents=True, exist_ok=True)
    (output_dir / "server.py").write_text(SITE_SCRIPT)
    schema = {"type": "object", "properties": {"module": {"type": "string"}}}
    return ServerRecord(
        name=name,
        version_id="v1",
        source=f"test:{name}",
        output_dir=output_dir,
        python_path=environment.python_path,
        venv=environment.venv,
        generator_version="test",
        tools=[
            ToolRecord(
                name="site_view",
                description="site_view",
                target="site:site_view",
                input_schema=schema,
                definition_hash="site_view",
            )
        ],
    )
