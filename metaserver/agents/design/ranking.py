"""Which candidates become tools, in what order: the library's main API first.

What a library's README and guide pages call first is what its users want, so a documented
entry point weighs far above what is easy to prove (an example with an expected value) and
above structural signals (``__all__``, annotations, exposure). Selection then removes
near-duplicates (an inherited method is one callable, however many subclasses list it; the
same docstring or signature family across generated classes is one tool's worth), prefers
the shallowest public path of an object, and caps tools per class, per method family and
per module so that the budget buys variety; the caps are soft: slots they leave empty are
filled afterwards, and documented entry points never count against them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from metaserver.agents.repo_docs.main_api import internal
from metaserver.contracts import Candidate

__all__ = [
    "built_at",
    "collapse_duplicates",
    "rank_key",
    "rank_score",
    "select",
    "shallowest",
    "sibling_keys",
]

DOCUMENTED_BASE = 24.0
"""A documented entry point's floor: twice what an expected value and an example give."""
DOCUMENTED_ORDER = 12.0
"""On top of the floor, shrinking with each name met before it in the README and guides."""
USAGE_CAP = 6.0
MIN_FAMILY = 3
INTERNAL_PENALTY = 16.0
"""An undocumented helper of an internal module (utilities, compat, a CLI ``main``) weighs
below any public callable, proven or not (main_api.py)."""
MAX_POSITION = 1_000_000


def rank_score(candidate: Candidate) -> float:
    """Higher is better: documented use, then proof, usage, documentation, exposure."""
    score = 0.0
    if candidate.documented is not None:
        score += DOCUMENTED_BASE + DOCUMENTED_ORDER * 0.9 ** max(candidate.documented, 0)
    if any(e.promises_value for e in candidate.examples):
        score += 8
    if candidate.examples:
        score += 4
    if candidate.in_all:
        score += 2
    exposed_at_top = any("." not in alias.split(":")[0] for alias in candidate.aliases)
    if candidate.top_level or exposed_at_top:
        score += 1
    if candidate.summary:
        score += 1
    score += min(USAGE_CAP, 2 * math.log2(1 + candidate.usage))
    score += candidate.annotated
    if candidate.kind == "method":
        score -= 0.5  # a method needs a handle first: slightly harder to use
    short = candidate.name.rpartition(".")[2]
    if short.isupper():
        score -= 2  # a constant that happens to be callable (dateutil's MO, TU...)
    if candidate.documented is None and internal(candidate):
        score -= INTERNAL_PENALTY
    return score


def built_at(candidates: list[Candidate]) -> dict[str, int]:
    """Class target -> where the README and guides first build an object of it: by calling
    its constructor, or a factory whose annotation says it returns the class
    (``am = arch_model(returns)`` builds a ``HARX``, and ``am.fit()`` is that class's)."""
    found: dict[str, int] = {}
    for candidate in candidates:
        if candidate.documented is None:
            continue
        if candidate.kind == "constructor":
            cls = candidate.target
        elif candidate.kind == "function" and candidate.returns:
            cls = candidate.returns
        else:
            continue
        found[cls] = min(found.get(cls, candidate.documented), candidate.documented)
    return found


def rank_key(
    candidate: Candidate, built: dict[str, int] | None = None
) -> tuple[float, int, int, str]:
    """Best first; among equals, a method of a class the README builds earlier (``built``,
    from :func:`built_at`: its ``count`` is the one users call), then the shallower module
    path, then the name."""
    shown = (built or {}).get(candidate.owner or "") if candidate.kind == "method" else None
    return (
        -rank_score(candidate),
        shown if shown is not None else MAX_POSITION,
        _depth(candidate.target),
        candidate.name,
    )


def _depth(target: str) -> int:
    return target.partition(":")[0].count(".")


def shallowest(candidate: Candidate) -> Candidate:
    """A function under its shallowest public path: ``pkg:f`` rather than ``pkg.sub.core:f``.

    The probe lists an object once, under the first path it met, and its other public paths
    as aliases; users call it by the short one (and tool names follow the path).
    """
    if candidate.kind != "function" or candidate.owner or not candidate.aliases:
        return candidate
    paths = [candidate.target, *(a for a in candidate.aliases if ":" in a)]
    best = min(paths, key=lambda path: (_depth(path), paths.index(path)))
    if best == candidate.target:
        return candidate
    module, _, name = best.partition(":")
    return candidate.model_copy(
        update={
            "target": best,
            "name": name,
            "aliases": [p for p in paths if p != best],
            "top_level": candidate.top_level or "." not in module,
        }
    )


def duplicate_key(candidate: Candidate) -> tuple[str, ...] | None:
    """Candidates with the same key are one tool's worth; None: not a duplicate of anything.

    A class's member is keyed by the class that defines it when the probe says (inherited
    methods), else by its docstring, else by its parameters; a function only by a
    non-empty docstring it shares with another function of the same name (a generated or
    copied API), since two undocumented functions of one name may well differ.
    """
    short = candidate.name.rpartition(".")[2]
    doc = " ".join(candidate.doc.split())
    if candidate.owner:
        if candidate.defined_in:
            return ("defined", candidate.defined_in, short)
        if doc:
            return ("doc", short, doc)
        params = [p.name for p in candidate.parameters[1 if candidate.kind == "method" else 0 :]]
        return ("params", short, *params)
    if candidate.kind == "function" and doc:
        return ("function", short, doc)
    return None


def sibling_keys(candidates: list[Candidate]) -> dict[str, tuple[str, ...]]:
    """A shared key for the functions of one name and parameters in sibling modules: module
    paths of one length that differ in one part (``pkg.datasets.cancer.data:load_pandas``
    and ``pkg.datasets.anes96.data:load_pandas``), a family generated or copied per module
    (MIN_FAMILY of them at least: two modules' ``parse`` may well differ). Such a family is
    one tool's worth, whatever their docstrings say; target -> key, for the functions in
    one. A documented one is no sibling of an undocumented
    one: the guides' imports chose it (``from pkg.io import write``, not ``pkg.aims``'s)."""
    functions = [c for c in candidates if c.kind == "function" and not c.owner]
    parent = {c.target: c.target for c in functions}

    def root(target: str) -> str:
        while parent[target] != target:
            parent[target] = parent[parent[target]]
            target = parent[target]
        return target

    first: dict[tuple[str, ...], str] = {}
    for candidate in functions:
        module, _, name = candidate.target.partition(":")
        parts = module.split(".")
        params = tuple(p.name for p in candidate.parameters)
        for index in range(1, len(parts)):
            masked = ".".join([*parts[:index], "*", *parts[index + 1 :]])
            key = (name, masked, str(candidate.documented is None), *params)
            if key in first:
                parent[root(candidate.target)] = root(first[key])
            else:
                first[key] = candidate.target
    grouped: dict[str, list[str]] = {}
    for candidate in functions:
        grouped.setdefault(root(candidate.target), []).append(candidate.target)
    return {
        target: ("siblings", group[0])
        for group in grouped.values()
        if len(group) >= MIN_FAMILY
        for target in group
    }


def collapse_duplicates(
    ranked: list[Candidate], built: dict[str, int] | None = None
) -> list[Candidate]:
    """``ranked`` with one candidate per duplicate key, at the best rank any of them had.

    The one kept is, among the members a documented session proves (its example built its
    receiver and shows the call's value: ``LineString(...).equals(LineString(...))`` ->
    ``True``, listed under LineString, proves an ``equals`` that BaseGeometry defines) or
    all when none is, the member of the class the README and guides build first, when
    they build one of them (``built``, from :func:`built_at`: ``hamming.distance`` is what
    users call, not the abstract base's; ``arch_model(...).fit()`` is ``HARX.fit``, which
    the factory's annotation names, not a sibling subclass's); else the member of the
    class that defines it when that class is listed (its own class makes the receiver);
    else the best-ranked one. Before, a proof that ranked the group was lost to a member
    without it.
    """
    built = built or {}

    def shown_at(candidate: Candidate) -> int | None:
        return built.get(candidate.owner or "")

    siblings = sibling_keys(ranked)

    def key_of(candidate: Candidate) -> tuple[str, ...] | None:
        return siblings.get(candidate.target) or duplicate_key(candidate)

    groups: dict[tuple[str, ...], list[Candidate]] = {}
    for candidate in ranked:
        key = key_of(candidate)
        if key is not None:
            groups.setdefault(key, []).append(candidate)
    kept: list[Candidate] = []
    for candidate in ranked:
        key = key_of(candidate)
        if key is None:
            kept.append(candidate)
            continue
        if groups[key][0] is not candidate:
            continue  # the group takes the place of its best-ranked member
        proven = [c for c in groups[key] if any(e.has_expected and e.session for e in c.examples)]
        group = proven or groups[key]
        shown = [c for c in group if shown_at(c) is not None]
        own = [c for c in group if c.defined_in and c.owner == c.defined_in]
        if shown:
            kept.append(min(shown, key=lambda c: shown_at(c) or 0))
        else:
            kept.append(own[0] if own else group[0])
    return kept


def select(
    ranked: list[Candidate],
    constructors: dict[str, Candidate],
    max_tools: int,
    usable: Callable[[Candidate], bool],
    requires: Callable[[Candidate], list[Candidate]] | None = None,
) -> list[Candidate]:
    """Up to ``max_tools`` candidates from ``ranked`` (best first), each method preceded by
    its class's constructor and by the tools its proving session replays (``requires``); a
    first pass within the caps, a second to fill what is left.
    """
    caps = _Caps(max_tools)
    chosen: list[Candidate] = []
    taken: set[str] = set()
    for capped in (True, False):
        for candidate in ranked:
            if len(chosen) >= max_tools:
                return chosen
            if candidate.target in taken:
                continue
            if (
                candidate.kind == "constructor"
                and candidate.documented is None
                and not any(e.promises_value for e in candidate.examples)
            ):
                continue  # alone, a handle is of little use: it comes in with its methods
            if capped and candidate.documented is None and internal(candidate):
                continue  # an internal helper only fills what the API leaves (main_api.py)
            # A documented name passes the class and module caps, not the family cap: the
            # README's `count` is one tool, on the class it builds, not one per class.
            if capped and not caps.allow(candidate, documented=candidate.documented is not None):
                continue
            owner = constructors.get(candidate.owner or "") if candidate.kind == "method" else None
            if _receiver_built(candidate, requires):
                owner = None  # its session builds the receiver with the tools it requires
            needs = [owner] if owner is not None and usable(owner) else []
            needs += requires(candidate) if requires else []
            needs = [
                n
                for i, n in enumerate(needs)
                if n.target not in taken
                and n.target != candidate.target
                and n.target not in {m.target for m in needs[:i]}
            ]
            if needs and len(chosen) + len(needs) + 1 > max_tools:
                continue
            for need in needs:  # the tools that make and set up the handle the method takes
                chosen.append(need)
                taken.add(need.target)
            chosen.append(candidate)
            taken.add(candidate.target)
            caps.count(candidate)
    return chosen


def _receiver_built(
    candidate: Candidate, requires: Callable[[Candidate], list[Candidate]] | None = None
) -> bool:
    """Whether the method's proving session (the one ``requires`` replays: the first with an
    expected value, else the first) builds its receiver (``resp = frequency_response(sys)``
    for ``resp.plot()``), so that its class's constructor is not needed beside it. A
    session that calls a callable no tool can be (a deprecated function) builds nothing."""
    sessions = [e for e in candidate.examples if e.session]
    proof = next((e for e in sessions if e.has_expected), sessions[0] if sessions else None)
    if proof is None or not any(
        s.into is None and s.member is None and s.attribute is None for s in proof.session
    ):
        return False
    if requires is None:
        return True
    replayed = {c.target for c in requires(candidate)} | {candidate.target}
    return all(s.attribute is not None or s.target in replayed for s in proof.session)


class _Caps:
    """Tools so far per class, per method family (a name across classes) and per module."""

    def __init__(self, max_tools: int) -> None:
        self.per_class = max(2, max_tools // 4)
        self.per_family = 1
        self.per_module = max(3, max_tools // 3)
        self.classes: Counter[str] = Counter()
        self.families: Counter[str] = Counter()
        self.modules: Counter[str] = Counter()

    def allow(self, candidate: Candidate, documented: bool = False) -> bool:
        if candidate.owner and self.families[_family(candidate)] >= self.per_family:
            return False
        if documented:
            return True
        if candidate.owner and self.classes[candidate.owner] >= self.per_class:
            return False
        return self.modules[_module(candidate)] < self.per_module

    def count(self, candidate: Candidate) -> None:
        if candidate.owner:
            self.classes[candidate.owner] += 1
            self.families[_family(candidate)] += 1
        self.modules[_module(candidate)] += 1


def _family(candidate: Candidate) -> str:
    return candidate.name.rpartition(".")[2]


def _module(candidate: Candidate) -> str:
    return candidate.target.partition(":")[0]
