"""Registry records for the registry's tests: a server at its place in a test home, and its
tools made from names and descriptions."""

from __future__ import annotations

from metaserver.contracts import JSON
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.settings import Settings


def server_record(
    settings: Settings, name: str, tools: list[ToolRecord], source: str = ""
) -> ServerRecord:
    """Server ``name`` with ``tools``, its files under the home's servers folder."""
    where = settings.servers_dir / name
    return ServerRecord(
        name=name,
        source=source or f"test:{name}",
        output_dir=where,
        python_path=where / "python",
        venv=where,
        generator_version="test",
        tools=tools,
    )


def tool_records(
    tools: dict[str, str], module: str = "pkg.mod", properties: dict[str, JSON] | None = None
) -> list[ToolRecord]:
    """A tool per ``name: description``, each a callable of ``module`` taking ``properties``."""
    return [
        ToolRecord(
            name=tool,
            description=text,
            target=f"{module}:{tool}",
            input_schema={"type": "object", "properties": properties or {}},
            definition_hash=tool,
        )
        for tool, text in tools.items()
    ]
