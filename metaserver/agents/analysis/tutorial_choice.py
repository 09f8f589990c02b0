"""In which order tutorials become tools: by what they show (issue 30).

Taking the first eight notebooks in path order spent the tools on tutorials that call the
same functions and left out the ones that show the rest of the package. Here the usable
tutorials (notebooks, example scripts, docs pages) are taken in turn by how many of the
package's entry points each calls that those taken before it do not (one that shows nothing
new comes after all that do). How many are made into tools is design's share of the tools;
how many are run is the time their validation really takes, against
``settings.timeouts.tutorials`` (``validate/tutorial_budget.py``): an estimate made here,
where nothing runs, was no bound.
"""

from __future__ import annotations

import ast

from metaserver.contracts import Candidate

__all__ = ["choose_tutorials", "entry_points", "runs_needed"]


def runs_needed(candidate: Candidate) -> int:
    """How many runs validation makes of it: one against stored outputs; else the
    reference, its reproduction and, where there is a parameter to vary, another run."""
    if any(e.has_expected for e in candidate.examples):
        return 1
    return 3 if candidate.parameters else 2


def entry_points(candidate: Candidate, packages: set[str]) -> set[str]:
    """The package's names the tutorial's cells call or read (``pkg.sub.f``)."""
    if candidate.notebook is None:
        return set()
    aliases: dict[str, str] = {}
    shown: set[str] = set()
    for cell in candidate.notebook.cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in packages:
                        bound = alias.asname or alias.name.split(".")[0]
                        aliases[bound] = alias.name if alias.asname else bound
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if node.module.split(".")[0] in packages:
                    for alias in node.names:
                        name = f"{node.module}.{alias.name}"
                        aliases[alias.asname or alias.name] = name
                        shown.add(name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                dotted = _dotted(node)
                head = dotted.split(".")[0] if dotted else ""
                if head in aliases:
                    shown.add(aliases[head] + dotted[len(head) :])
    # A chain's prefixes (``pkg.sub`` of ``pkg.sub.f``) are modules, not what it shows.
    return {name for name in shown if not any(o.startswith(name + ".") for o in shown)}


def choose_tutorials(candidates: list[Candidate], packages: set[str]) -> list[Candidate]:
    """``candidates`` in the order they are taken: most entry points not shown before."""
    shown: set[str] = set()
    left = list(candidates)
    chosen: list[Candidate] = []
    names = {c.target: entry_points(c, packages) for c in candidates}
    while left:
        # Most new entry points first; then stored outputs (one run, and a reference made
        # where the notebook was written); then the order found (tutorial folders first).
        best = max(
            left,
            key=lambda c: (len(names[c.target] - shown), runs_needed(c) == 1, -left.index(c)),
        )
        left.remove(best)
        shown |= names[best.target]
        chosen.append(best)
    return chosen


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])
