"""Core entry points per library (a TSV), and which of them a conversion's passed tools cover.

The TSV (``/work/shared/corpus/dev3-core.tsv``) has a header line, then
``library<TAB>comma-separated entry points``. A plain entry point (``dwt``, ``nasdaq.load``)
is covered by a passed tool whose target, read as a dotted path, ends with it. A method
``C.m`` is covered by a passed tool that calls ``m`` on an instance of ``C``: its target's
qualified name ends with ``C.m``, or its receiver was built by ``C``'s constructor (an
inherited method, ``Base.m``, proven on a ``C`` receiver counts). Used by
``convert_corpus.py``; imports nothing of metaserver, so it reads saved rows too.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["core_covered", "core_table", "library_of", "read_core"]

_NORMAL = re.compile(r"[-_.]+")


def read_core(path: Path) -> dict[str, list[str]]:
    """library -> its core entry points, in the file's order (the header line skipped)."""
    core: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        library, _, entries = line.partition("\t")
        names = [e.strip() for e in entries.split(",") if e.strip()]
        if library.strip() and names:
            core[library.strip()] = names
    return core


def _normal(name: str) -> str:
    return _NORMAL.sub("-", name.lower()).strip("-")


def library_of(source: str, libraries: Iterable[str]) -> str | None:
    """The library a corpus source converts (``pypi:scikit-learn==1.9.1`` ->
    ``scikit-learn``; a repository URL by its last part), or None."""
    name = source.partition(":")[2] if source.startswith("pypi:") else source
    name = re.split(r"[=<>!~\[@ ]", name, maxsplit=1)[0]
    name = name.rstrip("/").rpartition("/")[2].removesuffix(".git")
    wanted = _normal(name)
    for library in libraries:
        if _normal(library) == wanted:
            return library
    return None


def _dotted(target: str) -> str:
    return target.replace(":", ".")


def _class_name(target: str) -> str:
    return target.rpartition(":")[2].rpartition(".")[2]


def _covers(entry: str, tool: dict[str, Any], classes: set[str]) -> bool:
    target = str(tool.get("target") or "")
    dotted = _dotted(target)
    qualname = target.rpartition(":")[2]
    owner, _, method = entry.rpartition(".")
    if owner and owner in classes:  # a method: on an instance of that class only
        if qualname == entry or qualname.endswith("." + entry):
            return True
        receivers = {_class_name(r) for r in tool.get("receivers") or []}
        return qualname.rpartition(".")[2] == method and owner in receivers
    return dotted == entry or dotted.endswith("." + entry)


def core_covered(entries: list[str], tools: list[dict[str, Any]]) -> list[str]:
    """The entries the passed ``tools`` (``{"target", "receivers"}``) cover, in order. An
    entry ``X.y`` is a method when ``X`` starts with a capital letter or is another entry
    (a class the list names); else a dotted function path (``nasdaq.load``)."""
    classes = {e.partition(".")[0] for e in entries if "." in e}
    classes = {c for c in classes if c[:1].isupper() or c in entries}
    return [e for e in entries if any(_covers(e, tool, classes) for tool in tools)]


def core_table(rows: list[dict[str, Any]], core: dict[str, list[str]]) -> str:
    """Covered/total core entry points per library, the share of passed tools proven by an
    expected value, and the median conversion time."""
    lines = ["| library | core covered | missing |", "|---|---|---|"]
    covered_all = total_all = 0
    for row in rows:
        library = library_of(str(row.get("source", "")), core)
        if library is None:
            continue
        entries = core[library]
        passed = row.get("tools") or [] if row.get("status") == "success" else []
        covered = core_covered(entries, passed)
        covered_all, total_all = covered_all + len(covered), total_all + len(entries)
        missing = ", ".join(e for e in entries if e not in covered) or "-"
        share = f"{len(covered)}/{len(entries)} ({100 * len(covered) / len(entries):.0f}%)"
        lines.append(f"| {library} | {share} | {missing} |")
    if total_all:
        lines.append(
            f"\ncore entry points covered: {covered_all}/{total_all} "
            f"({100 * covered_all / total_all:.0f}%)"
        )
    passed_tools = sum(int(r.get("passed") or 0) for r in rows)
    expected = sum(int(r.get("expected") or 0) for r in rows)
    if passed_tools:
        lines.append(
            f"passed tools proven by an expected value: {expected}/{passed_tools} "
            f"({100 * expected / passed_tools:.0f}%)"
        )
    totals = [r["seconds"]["total"] for r in rows if "total" in (r.get("seconds") or {})]
    if totals:
        lines.append(f"median conversion time: {statistics.median(totals):.1f} s")
    return "\n".join(lines)
