"""How long a call of one tool may take: the server's own limit for it, when it has one.

Validation gives a slow tool (a notebook, a long computation) a longer limit than
``timeouts.tool_call`` and writes it into the server's ``tools.json`` and ``server.py``
(``agents/repair/rounds.py``). Whoever calls the tool later, the child pool or ``metaserver
call``, waits that long too; otherwise a tool proven in 90 s would fail every live call at 30.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from metaserver.registry.records import ServerRecord

__all__ = ["tool_timeout"]


def tool_timeout(record: ServerRecord, tool: str, default: float) -> float:
    """Seconds a call of ``tool`` may take: its own limit, never less than ``default``."""
    own = _limits(record.output_dir / "tools.json", record.version_id).get(tool)
    return max(default, own) if own is not None else default


@functools.lru_cache(maxsize=256)
def _limits(manifest: Path, version: str | None) -> dict[str, float]:
    """The tools' own limits in a generated server's ``tools.json`` (an added server has none);
    a version's file never changes, so it is read once per version."""
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return {}
    tools = data.get("tools", []) if isinstance(data, dict) else []
    return {
        str(tool["name"]): float(tool["timeout"])
        for tool in tools
        if isinstance(tool, dict)
        and isinstance(tool.get("timeout"), int | float)
        and not isinstance(tool.get("timeout"), bool)
        and tool["timeout"] > 0
    }
