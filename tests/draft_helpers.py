"""A Draft (a conversion with its environment) and a ToolSpec for tests of the repair stage,
with no repository behind them: nothing here starts a process."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.conversion import Conversion, Draft
from metaserver.contracts import (
    ConversionReport,
    Environment,
    Parameter,
    Source,
    ToolSpec,
    Workspace,
)
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings


def spec(name: str = "ratio") -> ToolSpec:
    return ToolSpec(
        name=name,
        description="",
        target=f"pkg:{name}",
        parameters=[
            Parameter(name="text", kind="positional_or_keyword", json_schema={"type": "string"})
        ],
    )


def draft(tmp_path: Path) -> Draft:
    settings = Settings(home=tmp_path / "home", sandbox={"backend": "process"})
    source = Source(kind="local", location=str(tmp_path), original=str(tmp_path))
    conversion = Conversion(
        settings=settings,
        sandbox=get_sandbox(settings.sandbox),
        report=ConversionReport(server="pkg", source=str(tmp_path)),
        workspace=Workspace(source=source, path=tmp_path),
        token="t0",
        max_tools=12,
    )
    venv = tmp_path / "venv"
    environment = Environment(
        ok=True,
        strategy="source",
        python="3.11",
        python_path=venv / "bin" / "python",
        venv=venv,
        seconds=0,
    )
    return Draft(conversion, environment)
