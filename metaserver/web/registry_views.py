"""The registry as fragments: servers, a server's versions and tools, a tool (its schema,
evidence and try-it form), and ranked search."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from metaserver.fs import tree_bytes
from metaserver.registry.records import ServerRecord, ServerSummary, ToolRecord
from metaserver.web.forms import try_form
from metaserver.web.markup import code, link, page_count, pager, part, shown, table, when

if TYPE_CHECKING:  # the ranking brings numpy: imported on the first search (issue 31)
    from metaserver.registry.search import ToolHit

PAGE_SIZE = 50


def servers_view(summaries: list[ServerSummary], page: int, home: Path) -> str:
    """Every registered server (its newest version's facts), a page of them."""
    total_tools = sum(s.versions[0].tools for s in summaries)
    pages = page_count(len(summaries), PAGE_SIZE)
    page = min(max(page, 1), pages)
    rows = []
    for summary in summaries[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]:
        newest = summary.versions[0]
        rows.append(
            [
                link(f"#/server/{part(summary.name)}", shown(summary.name, home)),
                shown(summary.kind, home),
                shown(summary.source, home),
                shown(newest.version, home),
                shown((newest.commit or "")[:12], home),
                str(newest.tools),
                str(len(summary.versions)),
                when(newest.created_at),
            ]
        )
    headers = ["server", "kind", "source", "version", "commit", "tools", "versions", "registered"]
    if not rows:
        return (
            '<section id="servers"><h2>Servers</h2><p class="empty">No servers are registered '
            "yet: start a conversion under Conversions.</p></section>"
        )
    return (
        f'<section id="servers"><h2>Servers</h2><p>{len(summaries)} servers, {total_tools} '
        f"tools.</p>{table(headers, rows, 'servers')}{pager('#/servers?', page, pages)}</section>"
    )


def server_view(record: ServerRecord, versions: list[ServerRecord], page: int, home: Path) -> str:
    """One version of a server: its facts, every version, and a page of its tools."""
    name = part(record.name)
    facts = [
        ("kind", record.kind),
        ("source", record.source),
        ("version", record.version_id),
        ("source version", record.version or ""),
        ("commit", record.commit or ""),
        ("generator", record.generator_version),
        ("registered", when(record.created_at)),
        ("size", _size(record.output_dir)),
        ("tools", str(len(record.tools))),
    ]
    fact_rows = [[shown(key, home), shown(value, home)] for key, value in facts]
    version_rows = [
        [
            link(f"#/server/{name}?version={part(v.version_id)}", shown(v.version_id, home)),
            shown((v.commit or "")[:12], home),
            str(len(v.tools)),
            when(v.created_at),
        ]
        for v in versions
    ]
    pages = page_count(len(record.tools), PAGE_SIZE)
    page = min(max(page, 1), pages)
    tool_rows = [
        [
            link(_tool_href(record, tool), shown(tool.name, home)),
            shown(_first_line(tool.description), home),
            shown(_check(tool), home),
        ]
        for tool in record.tools[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    ]
    base = f"#/server/{name}?version={part(record.version_id)}&"
    return (
        f'<section id="server"><h2>{shown(record.name, home)}</h2>'
        f"{table(['', ''], fact_rows, 'facts')}"
        f"<h3>Versions</h3>{table(['version', 'commit', 'tools', 'registered'], version_rows)}"
        f"<h3>Tools</h3>{table(['tool', 'description', 'proved by'], tool_rows, 'tools')}"
        f"{pager(base, page, pages)}</section>"
    )


def tool_view(record: ServerRecord, tool: ToolRecord, home: Path) -> str:
    """One tool: description, input schema, the evidence that proved it, a try-it form."""
    back = link(f"#/server/{part(record.name)}", shown(record.ref, home))
    return (
        f'<section id="tool"><h2>{shown(tool.name, home)} <small>of {back}</small></h2>'
        f'<p class="description">{shown(tool.description, home)}</p>'
        f"<p>target <code>{shown(tool.target, home)}</code></p>"
        f"<h3>Input schema</h3>{code(tool.input_schema, home)}"
        f'<details id="evidence"><summary>Evidence</summary>{evidence_view(tool.evidence, home)}'
        "</details>"
        f"<h3>Try it</h3>{try_form(record, tool, home)}</section>"
    )


def evidence_view(evidence: dict[str, Any] | None, home: Path) -> str:
    """What validation saw: the check, the arguments, the expected and actual value, and the
    session replayed to build a receiver."""
    if not evidence:
        return '<p class="empty">No evidence is kept for this tool (an added server).</p>'
    rows = [
        ["check", shown(evidence.get("check", ""), home)],
        ["arguments", code(evidence.get("arguments", {}), home)],
        ["expected", code(evidence.get("expected"), home)],
        ["actual", code(evidence.get("result"), home)],
    ]
    session = evidence.get("session") or []
    if session:
        lines = "\n".join(str(step.get("line", "")) for step in session if isinstance(step, dict))
        rows.append(["session", code(lines, home)])
    replay = evidence.get("replay") or []
    if replay:
        rows.append(["replayed example", code("\n".join(map(str, replay)), home)])
    return table(["", ""], rows, "evidence")


def search_view(query: str, hits: list[ToolHit], home: Path) -> str:
    """Ranked search results (the ranking of ``find_tools``), best first."""
    rows = [
        [
            str(rank),
            link(
                f"#/tool/{part(hit.server)}/{part(hit.tool)}",
                shown(f"{hit.server} / {hit.tool}", home),
            ),
            shown(_first_line(hit.description), home),
            f"{hit.score:.3f}" if hit.score is not None else "",
        ]
        for rank, hit in enumerate(hits, start=1)
    ]
    heading = f"<h2>Tools for &ldquo;{shown(query, home)}&rdquo;</h2>"
    if not rows:
        return f'<section id="found">{heading}<p class="empty">No tool matches.</p></section>'
    return (
        f'<section id="found">{heading}'
        f"{table(['#', 'tool', 'description', 'score'], rows, 'hits')}</section>"
    )


def _tool_href(record: ServerRecord, tool: ToolRecord) -> str:
    return f"#/tool/{part(record.name)}/{part(tool.name)}?version={part(record.version_id)}"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 160 else line[:157] + "..."


def _check(tool: ToolRecord) -> str:
    return str((tool.evidence or {}).get("check", "listed"))


_SIZES: dict[tuple[str, float], str] = {}


def _size(directory: Path) -> str:
    # A version's directory does not change once registered: measured once per process.
    key = (str(directory), directory.stat().st_mtime if directory.is_dir() else 0.0)
    if key not in _SIZES:
        _SIZES[key] = _human(tree_bytes(directory) if directory.is_dir() else 0)
    return _SIZES[key]


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"
