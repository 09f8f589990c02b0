"""Which tools build an object of a class, from the library's own documented call.

An object the docs never built (``lqr(sys)``), or the receiver of a method defined on an
abstract base class (``LTI.bandwidth``, whose own instance raises "not implemented"), is
built from what the library itself shows: the class's constructor called as its docs call
it, else a factory function whose annotation or docstring says it returns the class
(``ss(A, B, C, D)`` -> ``StateSpace``), else a subclass's constructor or factory (a
subclass inherits the method). Only the docstrings' and guides' calls with literal
arguments count, never synthesised ones: an object built from guessed arguments would
prove nothing.
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

    def of(self, cls: str) -> list[tuple[Candidate, dict[str, JSON]]]:
        """The builders of ``cls``, then of its subclasses, that the docs call with literal
        arguments, with those arguments: one per class, the class's constructor before its
        factories. Subclasses come in the order the README and guides first call their
        builders (an abstract base's method may need what only some subclasses define:
        those users build first are the likeliest to)."""
        subclasses = [t for t, c in self.constructors.items() if cls in c.bases]
        found = [b for b in (self._documented(cls),) if b is not None]
        others = [b for b in map(self._documented, subclasses) if b is not None]
        others.sort(key=lambda b: (b[0].documented is None, b[0].documented or 0))
        return found + others

    def _documented(self, cls: str) -> tuple[Candidate, dict[str, JSON]] | None:
        own = self.constructors.get(cls)
        ranked = sorted(
            self.factories.get(cls, []),
            key=lambda f: (f.documented is None, f.documented or 0),
        )
        for builder in ([own] if own else []) + ranked:
            arguments = documented_arguments(builder)
            if arguments is not None:
                return builder, arguments
        return None

    def constructor_of(self, cls: str) -> str | None:
        """The constructor target of the class a codec names (``handle:pkg.core:Graph``
        gives ``pkg.core:Graph``): the constructor listed under that path or under it as an
        alias, else the one constructor of that name re-exported by a package above its
        module (``pkg:Graph``); None when there is none, or more than one."""
        if cls in self.constructors:
            return cls
        for target, constructor in self.constructors.items():
            if cls in constructor.aliases:
                return target
        module, _, name = cls.partition(":")
        above = [
            target
            for target in self.constructors
            if target.partition(":")[2] == name
            and (module + ".").startswith(target.partition(":")[0] + ".")
        ]
        return above[0] if len(above) == 1 else None

    def steps(self, cls: str, variable: str) -> list[SessionStep]:
        """The session steps that may build ``variable`` as an object of ``cls``, best
        first (each alone builds it)."""
        return [built_step(builder, arguments, variable) for builder, arguments in self.of(cls)]


def built_step(builder: Candidate, arguments: dict[str, JSON], variable: str) -> SessionStep:
    """The session step that builds ``variable`` by calling ``builder`` with ``arguments``."""
    shown = ", ".join(f"{name}={json.dumps(value)}" for name, value in arguments.items())
    line = f"{variable} = {builder.name}({shown})"
    return SessionStep(line=line, target=builder.target, arguments=arguments)


def documented_arguments(builder: Candidate) -> dict[str, JSON] | None:
    """The arguments of the builder's first call the library's own docstrings or guides
    show with literals alone (no session of its own to replay first); None when they show
    none. Usage mining's calls are matched by name, so they count only for a builder the
    README and guides call as the package's own (``ct.rss(4, 2, 1)``): a guide's
    ``steps.append("impulse")`` is no call of the package's ``append``."""
    trusted = ("doctest", "usage") if builder.documented is not None else ("doctest",)
    for example in builder.examples:
        if example.origin not in trusted or example.session:
            continue
        return dict(example.arguments)
    return None
