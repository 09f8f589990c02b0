"""README coverage: how many of the entry points a library's README and guides call became
tools that passed validation.

A conversion can pass its three-tool bar with tools nobody would call; this number says
whether the library's main API made it in. The documented names come from usage mining
(``Usage.documented``, static), or, where the README and guides call none of the package,
from its public namespace (``main_api.public_namespace``); a name is covered when a passed
tool is bound to a callable of that name (a function, a method, or a class through its
constructor), a method name only on the class the guides call it on (``pinned_paths``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from metaserver.agents.repo_docs.data_flow import reaching_names
from metaserver.agents.repo_docs.guide_paths import pinned_paths
from metaserver.agents.repo_docs.main_api import public_namespace, shows_api
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import Candidate, Coverage, ToolSpec

__all__ = ["readme_coverage", "short_name"]


def short_name(target: str) -> str:
    """The name a reader calls: ``pkg.mod:Class.method`` -> ``method``, ``pkg:Class`` ->
    ``Class``, ``pkg.mod.func`` -> ``func``."""
    return target.rpartition(":")[2].rpartition(".")[2]


def readme_coverage(
    usage: Usage | None,
    passed: Iterable[ToolSpec],
    candidates: Iterable[Candidate] = (),
    needs_programs: Iterable[str] = (),
) -> Coverage:
    """The documented entry points and those that a passed tool calls.

    A name whose every candidate the probe found reaching the network or a process
    (``dangerous``: never a tool) joins the names that read files: listed, not counted. A
    name the guides' own imports resolve (``Usage.paths``) is covered only by the callable
    listed under that path. ``needs_programs``: the targets of tools whose examples failed
    only for an external program that is not installed (validate/programs.py); a documented
    name such a tool is bound to, and no passed tool covers, is listed apart, not counted;
    so is one that only takes data its guide read before (``Usage.takes_data``).
    """
    candidates = list(candidates)
    documented = list(usage.documented) if usage is not None else []
    basis: Literal["readme", "namespace"] = "readme"
    if not shows_api(usage):
        # A README with no code: the package's public namespace is what it offers.
        documented, basis = public_namespace(usage, candidates), "namespace"
    reads_files = list(usage.reads_files) if usage is not None else []
    reaching = reaching_names(candidates)
    reads_files += [n for n in documented if n in reaching and n not in reads_files]
    tools = [spec.target for spec in passed if spec.kind != "script"]
    names = {short_name(target) for target in tools}
    # A name the guides import from one module is covered by that callable only, never by
    # a same-named one elsewhere in the package.
    pinned = pinned_paths(usage, candidates) if usage is not None else {}
    for name, paths in pinned.items():
        if not any(t.replace(":", ".") in paths for t in tools if short_name(t) == name):
            names.discard(name)
    covered = [name for name in documented if name in names]
    programs = {short_name(target) for target in needs_programs}
    needing = [n for n in documented if n in programs and n not in names and n not in reads_files]
    # A documented use that takes data the guide read first is out of a tool's reach; a
    # passed tool bound to the name still counts (it runs on other arguments).
    data = set(usage.takes_data) if usage is not None else set()
    needs_data = [n for n in documented if n in data and n not in names and n not in reads_files]
    apart = {*reads_files, *needing, *needs_data}
    counted = [name for name in documented if name not in apart]
    hits = [name for name in counted if name in names]
    ratio = round(len(hits) / len(counted), 3) if counted else None
    return Coverage(
        documented=documented,
        covered=covered,
        basis=basis,
        reads_files=reads_files,
        needs_programs=needing,
        needs_data=needs_data,
        ratio=ratio,
    )
