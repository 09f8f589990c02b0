"""The commit message of an exported change: what was generated, and how it was proven."""

from __future__ import annotations

import textwrap
from typing import Any

__all__ = ["commit_message"]

_WIDTH = 72


def commit_message(
    distribution: str,
    folder: str,
    source: str,
    commit: str | None,
    generator: str,
    calls: list[dict[str, Any]],
    packaging: str,
    install: str,
) -> str:
    """Subject, blank line, body (wrapped at 72 columns), ending in a newline."""
    checked = sum(1 for call in calls if call.get("check") == "expected-value")
    notebooks = sum(1 for call in calls if call.get("check") == "notebook-outputs")
    checks = [f"{checked} returned the value the repository's own documentation shows"]
    if notebooks:
        checks.append(f"{notebooks} reproduced a notebook's stored outputs")
    if len(calls) - checked - notebooks:
        checks.append(f"{len(calls) - checked - notebooks} answered without error")
    tools = sorted(call["tool"] for call in calls)
    at = f" at {commit}" if commit else ""
    paragraphs = [
        f"metaserver {generator} converted {source}{at} into an MCP server. This adds it in "
        f"{folder}/: server.py (FastMCP, one function per tool, each bound to a callable of "
        f"the installed package), its tests, and a README; {packaging} declares what it "
        f"needs ({install}). Nothing else in the repository changes.",
        f"How it was proven: each of the {len(calls)} tools was called through a real MCP "
        f"client in a sandbox before it was kept: {'; '.join(checks)}. "
        f"{folder}/tests replays those calls against a fresh server: pytest {folder}/",
        "Tools: " + ", ".join(tools) + ".",
    ]
    body = "\n\n".join(textwrap.fill(p, _WIDTH, break_on_hyphens=False) for p in paragraphs)
    return f"Add an MCP server for {distribution}\n\n{body}\n"
