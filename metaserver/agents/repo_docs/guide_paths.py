"""Where a guide's calls lead: the dotted path each call names through the text's own
imports, and the candidates listed under those paths (usage mining records the paths,
design and coverage pin a documented name to those candidates only).

``from pkg.io import write`` then ``write(...)`` is a call of ``pkg.io.write``, never of
another ``write`` deep in the package; ``opt = BFGS(h2); opt.run()`` is one of
``pkg.optimize.BFGS.run``. Static only: the texts are parsed, never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from metaserver.contracts import Candidate

if TYPE_CHECKING:  # usage.py imports this module: the name is for annotations only
    from metaserver.agents.repo_docs.usage import Usage

__all__ = ["built_names", "candidate_paths", "imported_names", "pinned_paths", "resolved"]


def candidate_paths(candidate: Candidate) -> set[str]:
    """Every dotted path the candidate is listed under (its target and its aliases)."""
    return {path.replace(":", ".") for path in (candidate.target, *candidate.aliases)}


def pinned_paths(usage: Usage, candidates: Iterable[Candidate]) -> dict[str, set[str]]:
    """For each documented name the guides' imports resolve (``Usage.paths``), every path
    of the candidates listed under one of its paths (a method under any path of its class:
    ``pkg.Box.get`` is ``pkg.box:Box.get``; an inherited method under every class that
    lists it): only those are the documented entry point.

    A name whose paths no candidate is listed under maps to nothing when the place that
    holds it was looked at (a module the probe walked, a class it listed: the object is no
    candidate there, and another of the same name is not what the guide calls); else it is
    left out, and its short name decides as before (the object may live where the probe
    did not look, or be a method of what a function returned: ``x = closed(0, 1);
    x.replace()``), unless the function says which of the package's classes it returns
    (``Candidate.returns``): then the method is that class's, as if called on it.
    """
    pinned: dict[str, set[str]] = {}
    if not usage.paths:
        return pinned
    candidates = list(candidates)
    classes = {c.target: candidate_paths(c) for c in candidates if c.kind == "constructor"}
    listed = []
    for candidate in candidates:
        paths = candidate_paths(candidate)
        if candidate.kind == "method" and candidate.owner in classes:
            method = candidate.name.rpartition(".")[2]
            paths |= {f"{owner}.{method}" for owner in classes[candidate.owner]}
        listed.append(paths)
    # An inherited method is one callable under every subclass that lists it: a guide's
    # ``Sub.get`` is also ``Base.get``, whichever of them became the tool.
    merged: dict[tuple[str, str], set[str]] = {}
    for candidate, paths in zip(candidates, listed, strict=True):
        key = _defined(candidate)
        if key is not None:
            merged.setdefault(key, set()).update(paths)
    pairs = zip(candidates, listed, strict=True)
    listed = [merged.get(_defined(c) or ("", ""), paths) for c, paths in pairs]
    places = {t.partition(":")[0] for c in candidates for t in (c.target, *c.aliases)}
    places |= set().union(*classes.values()) if classes else set()
    made = _made_by(candidates, classes)
    for name, called in usage.paths.items():
        # ``t = make_tally(...); t.total()``: the method of the class make_tally returns.
        called = [
            *called,
            *(
                f"{owner}.{path.rpartition('.')[2]}"
                for path in called
                for owner in made.get(path.rpartition(".")[0], ())
            ),
        ]
        hits = [found for found in listed if found & set(called)]
        if hits:
            pinned[name] = set().union(*hits)
        elif any(path.rpartition(".")[0] in places for path in called):
            pinned[name] = set()
    return pinned


def _made_by(candidates: list[Candidate], classes: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each path of a function that returns one of the package's classes (``returns``), to
    that class's paths: a method called on what the function made is that class's."""
    made: dict[str, set[str]] = {}
    for candidate in candidates:
        if candidate.kind == "function" and candidate.returns in classes:
            for path in candidate_paths(candidate):
                made.setdefault(path, set()).update(classes[candidate.returns or ""])
    return made


def _defined(candidate: Candidate) -> tuple[str, str] | None:
    """(the class that defines it, its name) for a method the probe traced; else None."""
    if candidate.kind != "method" or not candidate.defined_in:
        return None
    return candidate.defined_in, candidate.name.rpartition(".")[2]


def imported_names(sources: Iterable[str]) -> dict[str, str]:
    """The names the code's import statements bind, each to the dotted path it stands for:
    ``from a.b import c as d`` binds ``d`` to ``a.b.c``; ``import a.b as m``, ``m`` to
    ``a.b``; ``import a.b``, ``a`` to ``a``. The first binding of a name wins."""
    bindings: dict[str, str] = {}
    for tree in _trees(sources):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        bindings.setdefault(
                            alias.asname or alias.name, f"{node.module}.{alias.name}"
                        )
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bindings.setdefault(alias.asname, alias.name)
                    else:
                        top = alias.name.partition(".")[0]
                        bindings.setdefault(top, top)
    return bindings


def built_names(
    sources: Iterable[str], bindings: dict[str, str], packages: set[str]
) -> dict[str, str]:
    """The variables the code assigns the result of one of the package's (``packages``)
    imported callables to (``opt = BFGS(h2)`` after ``from pkg.optimize import BFGS``),
    each to that callable's path: a method called on one (``opt.run()``) is
    ``pkg.optimize.BFGS.run``. The first wins. Another library's object stays unresolved:
    the package may extend it (``df.pkg_accessor.plot()``)."""
    built: dict[str, str] = {}
    for tree in _trees(sources):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
            ):
                dotted = resolved(node.value.func, bindings)
                if dotted is not None and dotted.partition(".")[0] in packages:
                    built.setdefault(node.targets[0].id, dotted)
    return built


def resolved(
    func: ast.expr, bindings: dict[str, str], built: dict[str, str] | None = None
) -> str | None:
    """The dotted path a called expression names through the imports in ``bindings``:
    ``write`` -> ``pkg.io.write``, ``m.f`` -> ``pkg.mod.f``, ``pkg.mod.f`` -> itself, and
    through the variables ``built`` by an imported callable: ``opt.run`` ->
    ``pkg.optimize.BFGS.run``; None for anything else (a call's result, a variable of
    unknown origin)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    if func.id in bindings:
        return ".".join([bindings[func.id], *reversed(parts)])
    if parts and built and func.id in built:
        return ".".join([built[func.id], *reversed(parts)])
    return None


def _trees(sources: Iterable[str]) -> Iterator[ast.Module]:
    """The sources that parse, parsed (a piece of prose or a shell line is skipped)."""
    for source in sources:
        try:
            yield ast.parse(source)
        except (SyntaxError, ValueError):
            continue
