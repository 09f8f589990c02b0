"""The library's main API when its README and guides call none of it.

Evidence of use, in this order: the README, the docs' guide pages (``Usage.documented``),
the examples folder (``Usage.exampled``), the package's public namespace (what its top
level exports, else its ``__all__`` lists) and its own test suite (``Usage.tested``: the
names its tests call most). A library whose README shows no code still has a main API;
before, the design ranked its internal helpers (a CSV sanitiser from a utilities module)
as high as its tokenizers, and the report's coverage was n/a.

Internal modules (utilities, compatibility shims, testing helpers, command-line ``main``s,
bridges to optional libraries, network fetchers) are not the API unless documented: a
candidate every public path of which runs through one is ``internal``. Static, host side.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import Candidate

__all__ = [
    "MAX_NAMESPACE",
    "fallback_entry_points",
    "internal",
    "public_namespace",
    "shows_api",
    "with_fallback",
]

MAX_NAMESPACE = 60
"""The public names counted at most (as many as the README and guides are read for)."""

# Module names that hold a package's plumbing, in every ecosystem's conventions.
_INTERNAL_MODULE = re.compile(
    r"_*(?:utils?|utilities|misc|helpers?|internals?|private|compat\w*|\w*_compat|py\d*compat"
    r"|six|backports?|testing|tests?|conftest|cli|__main__|commands?|scripts?"
    r"|vendor(?:ed)?|externals?|extern|third_?party|bridges?|interop\w*"
    r"|fetch\w*|download\w*|remote)",
    re.I,
)
_INTERNAL_NAME = re.compile(r"main|cli|run_cli", re.I)


def internal(candidate: Candidate) -> bool:
    """Whether every public path of the candidate runs through an internal module, or it
    is a command line's ``main``. A script or a notebook is what it is: never internal."""
    if candidate.kind in ("script", "notebook"):
        return False
    if _INTERNAL_NAME.fullmatch(candidate.name.rpartition(".")[2]):
        return True
    paths = [candidate.target, *(a for a in candidate.aliases if ":" in a)]
    return all(
        any(_INTERNAL_MODULE.fullmatch(part) for part in path.partition(":")[0].split(".")[1:])
        for path in paths
    )


def _short(candidate: Candidate) -> str:
    return candidate.name if candidate.kind == "constructor" else candidate.name.rpartition(".")[2]


def _exported(candidate: Candidate) -> bool:
    """Listed at the package's top level (``pkg:f``, or re-exported there)."""
    paths = [candidate.target, *(a for a in candidate.aliases if ":" in a)]
    return candidate.top_level or any("." not in p.partition(":")[0] for p in paths)


def _eligible(candidate: Candidate) -> bool:
    return (
        (candidate.kind == "constructor" or (candidate.kind == "function" and not candidate.owner))
        and not candidate.deprecated
        and not any(part.startswith("_") for part in candidate.name.split("."))
        and not internal(candidate)
    )


def public_namespace(usage: Usage | None, candidates: Iterable[Candidate]) -> list[str]:
    """The package's public names, most used first (calls in its tests, then anywhere; then
    by name), at most MAX_NAMESPACE: what its top level exports; else what its modules'
    ``__all__`` lists; else the functions and classes its tests and examples call.
    Internal helpers are no part of it."""
    eligible = [c for c in candidates if _eligible(c)]
    for tier in (
        [c for c in eligible if _exported(c)],
        [c for c in eligible if c.in_all],
        [c for c in eligible if _used(usage, _short(c))],
    ):
        names = sorted({_short(c) for c in tier}, key=lambda n: _most_used(usage, n))
        if names:
            return names[:MAX_NAMESPACE]
    return []


def _used(usage: Usage | None, name: str) -> bool:
    return usage is not None and bool(usage.tested.get(name) or usage.counts.get(name))


def _most_used(usage: Usage | None, name: str) -> tuple[int, int, str]:
    if usage is None:
        return 0, 0, name
    return -usage.tested.get(name, 0), -usage.counts.get(name, 0), name


def shows_api(usage: Usage | None) -> bool:
    """Whether the README and guides call any of the package (a file reader counts: it is
    still what the text shows)."""
    return usage is not None and bool(usage.documented)


def fallback_entry_points(usage: Usage, candidates: Iterable[Candidate]) -> list[str]:
    """The entry points when the README and guides show none: the examples folder's calls
    (first met first); then the public namespace's names that the tests call, and then the
    other public names they call (each most tested first). A name nothing calls is none
    (its place in the namespace still ranks it); internal helpers are none either."""
    candidates = list(candidates)
    public = {_short(c) for c in candidates if _eligible(c)}
    namespace = public_namespace(usage, candidates)
    called = sorted((n for n in public if usage.tested.get(n)), key=lambda n: _most_used(usage, n))
    found: list[str] = []
    for name in [*usage.exampled, *(n for n in namespace if usage.tested.get(n)), *called]:
        if name in public and name not in found:
            found.append(name)
    return found[:MAX_NAMESPACE]


def with_fallback(usage: Usage | None, candidates: Iterable[Candidate]) -> Usage | None:
    """``usage`` with the fallback entry points as its documented names when the README and
    guides show none (design ranks them as documented, in that order); else as it is."""
    candidates = list(candidates)
    if usage is None or shows_api(usage):
        return usage
    return usage.model_copy(update={"documented": fallback_entry_points(usage, candidates)})
