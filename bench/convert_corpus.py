"""Convert every source of a corpus file with the real pipeline; print a table per source.

Usage::

    uv run python bench/convert_corpus.py [CORPUS ...] [--only SUBSTRING] [--json FILE]
        [--core TSV]

CORPUS is a corpus file, or the name of one beside the default (``dev``, ``dev2``); several
are converted in turn. Each source runs in a fresh ``METASERVER_HOME`` (so nothing is reused
between runs but the shared uv package cache), in-process, with no model. The table shows,
per source: status, candidates found, tools published, tools passed, passes with an
expected-value check, README coverage (documented entry points that became passed tools; the
names whose every guide call reads a file or URL, and those whose tools failed only for an
external program that is not installed, are left out and counted apart), handles
returned where the documentation shows a number, tools blamed on the repository, and seconds
per stage. With a core-entry-points TSV (``--core``, or ``NAME-core.tsv`` beside a corpus
``NAME.txt``: ``library<TAB>comma-separated entry points``, header first), a second table
gives the core entry points each library's passed tools cover (``core_entries.py``), the
share of passed tools proven by an expected value, and the median conversion time.
Not run by CI: it needs the package index (or a warm cache) and minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from core_entries import core_table, read_core

from metaserver.contracts import ToolEvidence
from metaserver.pipeline import convert
from metaserver.settings import LLMSettings, Settings

DEFAULT_CORPUS = Path("/work/shared/corpus/dev.txt")
STAGES = ("fetch", "environment", "analysis", "generate", "validate", "register", "total")
_CANDIDATES = re.compile(r"analysis: (\d+) candidates")


class _Counter(logging.Handler):
    """Reads the candidate count from the pipeline's own log line."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.candidates: int | None = None

    def emit(self, record: logging.LogRecord) -> None:
        match = _CANDIDATES.search(record.getMessage())
        if match:
            self.candidates = int(match.group(1))


def read_corpus(path: Path) -> list[str]:
    """The sources of a corpus file: one per line, ``#`` comments ignored."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


async def convert_one(source: str, root: Path, llm: LLMSettings | None = None) -> dict[str, Any]:
    """One conversion in a fresh home under ``root``; a row of the table. ``llm``: the model
    to convert with (``real_model.py``); unset, the environment's settings, as everywhere."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=root))
    settings = Settings(home=home) if llm is None else Settings(home=home, llm=llm)
    counter = _Counter()
    logging.getLogger("metaserver").addHandler(counter)
    started = time.monotonic()
    try:
        report = await convert(source, settings=settings)
    except Exception as exc:  # a crash is a row too, not the end of the benchmark
        return {"source": source, "status": f"crash: {type(exc).__name__}: {exc}"[:120]}
    finally:
        logging.getLogger("metaserver").removeHandler(counter)
    published = [t for t in report.tools if t.status == "passed"]
    expected = [t for t in published if t.evidence and t.evidence.check == "expected-value"]
    return {
        "source": source,
        "status": report.status,
        "failure": report.failure.model_dump() if report.failure else None,
        "candidates": counter.candidates,
        "published": len(published) if report.status == "success" else 0,
        "passed": report.tools_passed,
        "expected": len(expected),
        "tried": len(report.tools),
        "rounds": report.rounds,
        "repaired": len([t for t in published if t.repaired]),
        "repo_bugs": len([t for t in report.tools if t.failure_type == "repo_internal_bug"]),
        # A verdict against the repository must carry the replay of its own example.
        "repo_bugs_unreplayed": len(
            [
                t
                for t in report.tools
                if t.failure_type == "repo_internal_bug" and not (t.evidence and t.evidence.replay)
            ]
        ),
        # A documented number answered with a handle: a codec missed the library's type.
        "handles_for_numbers": len([t for t in report.tools if _handle_for_number(t)]),
        "coverage": report.coverage.model_dump(),
        "seconds": {**report.seconds, "wall": round(time.monotonic() - started, 1)},
        "llm": report.llm.model_dump(),
        "tools": [
            {
                "name": t.name,
                "target": t.target,
                "check": t.evidence and t.evidence.check,
                "receivers": _receivers(t),
            }
            for t in published
        ],
        "failed_tools": [
            {"name": t.name, "target": t.target, "error": t.error, "type": t.failure_type}
            for t in report.tools
            if t.status != "passed"
        ],
    }


def _receivers(tool: ToolEvidence) -> list[str]:
    """The constructors whose objects the tool's proof called it on (its session's steps
    that built the receiver): an inherited method proven on a subclass's object."""
    if tool.evidence is None:
        return []
    return [
        s.target
        for s in tool.evidence.session
        if s.member is None and s.into is None and s.attribute is None
    ]


def _handle_for_number(tool: ToolEvidence) -> bool:
    evidence = tool.evidence
    if evidence is None or not isinstance(evidence.result, dict):
        return False
    expected = evidence.expected
    numeric = isinstance(expected, int | float) and not isinstance(expected, bool)
    numeric = numeric or (isinstance(expected, str) and any(c.isdigit() for c in expected))
    return numeric and "handle" in evidence.result


def table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of the rows."""
    head = ["source", "status", "cand", "publ", "pass", "expect", "readme", "handles"]
    head += ["repaired", "bugs"]
    head += STAGES
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        seconds = row.get("seconds", {})
        cells = [
            row["source"],
            row["status"],
            str(row.get("candidates", "")),
            str(row.get("published", "")),
            f"{row.get('passed', '')}/{row.get('tried', '')}",
            str(row.get("expected", "")),
            _coverage_cell(row.get("coverage")),
            str(row.get("handles_for_numbers", "")),
            str(row.get("repaired", "")),
            str(row.get("repo_bugs", "")),
            *(f"{seconds[s]:.1f}" if s in seconds else "-" for s in STAGES),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    totals = [r["seconds"]["total"] for r in rows if "total" in r.get("seconds", {})]
    if totals:
        lines.append(f"\nmedian total: {statistics.median(totals):.1f} s over {len(totals)}")
    return "\n".join(lines)


def _coverage_cell(coverage: dict[str, Any] | None) -> str:
    """``covered/documented (percent)``, without the names that read files or URLs (``+N
    files``), need an uninstalled program (``+N programs``) or only take data read from
    files or the network (``+N read data``); `` ns`` when measured on the public namespace
    (the README and guides call none of the package); ``-`` when there is nothing to count;
    ``n/a (N files/net)`` when every name they call reads a file or a URL or reaches the
    network (no ratio: nothing to count, which is not 0%)."""
    if not coverage:
        return "-"
    files = set(coverage.get("reads_files") or [])
    programs = set(coverage.get("needs_programs") or [])
    data = set(coverage.get("needs_data") or [])
    apart = files | programs | data
    documented = [n for n in coverage.get("documented", []) if n not in apart]
    covered = [n for n in coverage.get("covered", []) if n not in apart]
    needs = f" +{len(programs)} programs" if programs else ""
    needs += f" +{len(data)} read data" if data else ""
    if not documented:
        return f"n/a ({len(files)} files/net){needs}" if apart else "-"
    cell = f"{len(covered)}/{len(documented)} ({100 * len(covered) / len(documented):.0f}%)"
    if coverage.get("basis") == "namespace":  # a README with no code: its public names
        cell += " ns"
    return cell + (f" +{len(files)} files" if files else "") + needs


def corpus_path(text: str) -> Path:
    """A corpus file, or the name of one beside the default corpus (``dev2``)."""
    path = Path(text)
    if path.exists() or path.suffix or "/" in text:
        return path
    return DEFAULT_CORPUS.with_name(f"{text}.txt")


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=corpus_path, default=[DEFAULT_CORPUS])
    parser.add_argument("--only", action="append", default=[], help="sources containing this")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the homes (for debugging)")
    parser.add_argument("--core", type=Path, help="core entry points per library (a TSV)")
    options = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    logging.getLogger("metaserver").setLevel(logging.INFO)
    sources = [source for corpus in options.corpus for source in read_corpus(corpus)]
    if options.only:
        sources = [s for s in sources if any(o in s for o in options.only)]
    root = Path(tempfile.mkdtemp(prefix="metaserver-bench-"))
    rows = []
    for source in sources:
        row = await convert_one(source, root)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    print(table(rows))
    cores = (
        [options.core]
        if options.core
        else [c.with_name(f"{c.stem}-core.tsv") for c in options.corpus]
    )
    core = {k: v for path in cores if path.exists() for k, v in read_core(path).items()}
    if core:
        print()
        print(core_table(rows, core))
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2))
    if not options.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"homes kept under {root}")
    return 0 if all(r["status"] == "success" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
