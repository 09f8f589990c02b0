"""A uv environment of a plain local tree (one module, no dependencies): what a repair's
install is tried on."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.environment.build import build_environment
from metaserver.contracts import Environment, Source, Workspace
from metaserver.sandbox import Sandbox, get_sandbox
from metaserver.settings import Settings


async def plain_environment(tmp_path: Path, settings: Settings) -> tuple[Environment, Sandbox]:
    """The built environment of ``tmp_path/plain`` and the sandbox it was built in."""
    tree = tmp_path / "plain"
    tree.mkdir()
    (tree / "requirements.txt").write_text("# nothing beyond the standard library\n")
    (tree / "plainmod.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    source = Source(kind="local", location=str(tree), original=str(tree))
    venv = settings.environments_dir / "plain-abc1"
    sandbox = get_sandbox(settings.sandbox)
    environment = await build_environment(
        Workspace(source=source, path=tree), venv, settings, sandbox
    )
    return environment, sandbox
