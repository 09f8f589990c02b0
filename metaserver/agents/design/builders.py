"""Which tools build an object of a class, from the library's own documented call.

An object the docs never built (``lqr(sys)``), or the receiver of a method defined on an
abstract base class (``LTI.bandwidth``, whose own instance raises "not implemented"), is
built from what the library itself shows: the class's constructor called as its docs call
it, else a factory function whose annotation or docstring says it returns the class
(``ss(A, B, C, D)`` -> ``StateSpace``), else a subclass's constructor or factory (a
subclass inherits the method). Only calls with literal arguments count, never synthesised
ones: an object built from guessed arguments would prove nothing.
"""

from __future__ import annotations

import json

from metaserver.contracts import JSON, Candidate, SessionStep


class Builders:
    """The documented builders of each class, by its constructor's target."""

    def __init__(self, candidates: list[Candidate]) -> None:
        self.constructors = {c.target: c for c in candidates if c.kind == "constructor"}
        self.factories: dict[str, list[Candidate]] = {}
        for candidate in candidates:
            if candidate.kind == "function" and candidate.returns:
                self.factories.setdefault(candidate.returns, []).append(candidate)

    def of(self, cls: str, subclasses: bool = True) -> tuple[Candidate, dict[str, JSON]] | None:
        """The first builder of ``cls`` (or, with ``subclasses``, of a subclass) that the
        docs call with literal arguments, with those arguments."""
        classes = [cls]
        if subclasses:
            classes += [t for t, c in self.constructors.items() if cls in c.bases]
        for target in classes:
            own = self.constructors.get(target)
            for builder in ([own] if own else []) + self.factories.get(target, []):
                arguments = documented_arguments(builder)
                if arguments is not None:
                    return builder, arguments
        return None

    def step(self, cls: str, variable: str, subclasses: bool = True) -> SessionStep | None:
        """The session step that builds ``variable`` as an object of ``cls``."""
        found = self.of(cls, subclasses)
        if found is None:
            return None
        builder, arguments = found
        shown = ", ".join(f"{name}={json.dumps(value)}" for name, value in arguments.items())
        line = f"{variable} = {builder.name}({shown})"
        return SessionStep(line=line, target=builder.target, arguments=arguments)


def documented_arguments(builder: Candidate) -> dict[str, JSON] | None:
    """The arguments of the builder's first call the library's own text shows with literals
    alone (no session of its own to replay first); None when it shows none."""
    for example in builder.examples:
        if example.origin in ("synthesised", "llm") or example.session:
            continue
        return dict(example.arguments)
    return None
