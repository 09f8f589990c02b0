"""guide_signatures: a compiled callable that states no signature (no text signature, no
call on its docstring's first line) takes what the README's calls of it pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from probe_modules import guided_module

from metaserver.probe import guide_signatures
from metaserver.probe.guide_signatures import guide_signature
from metaserver.probe.members import describe_class


def signature_of(texts: list[str], name: str, method: bool = False) -> str | None:
    guide_signatures.set_called_texts(texts)
    try:
        found = guide_signature(name, method=method)
        return None if found is None else str(found)
    finally:
        guide_signatures.set_called_texts([])


def test_the_arguments_every_call_passes_are_the_parameters() -> None:
    text = ">>> e, r = sat.sgp4(jd, fr)\n>>> x = other.sgp4(jd, fr, 3)\n"
    assert signature_of([text], "sgp4", method=True) == "(self, jd, fr, /)"
    # names that differ from call to call, or no names, are numbered
    assert signature_of([">>> a.f(x, 1)\n>>> a.f(y, 2)\n"], "f") == "(arg1, arg2, /)"
    # keywords every call uses; a constructor called by its name
    texts = [">>> Orbit(2, mode='a')\n", ">>> Orbit(3, mode='b', fast=True)\n"]
    assert signature_of(texts, "Orbit") == "(arg1, /, *, mode)"


@pytest.mark.parametrize("text", [">>> a.f(*xs)\n", ">>> a.f(**kw)\n", ">>> a.g(1)\n", "a.f(1)\n"])
def test_calls_no_signature_can_say_give_none(text: str) -> None:
    assert signature_of([text], "f") is None


# A stand-in for an older compiled type: neither inspect.signature nor the docstring's first
# line says how its method is called.
SOURCE = """
class NativeMethod:
    __signature__ = "unreadable"  # inspect.signature raises, as for a C method

    def __init__(self, function, doc):
        self.function, self.__doc__, self.__name__ = function, doc, function.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return lambda *args: self.function(instance, *args)


def propagate(self, jd, fr):
    return 0, [jd + fr]


class Orbit:
    propagate = NativeMethod(propagate, "Given a julian date, return the position.")
"""

GUIDE = """
>>> from orbitnat import Orbit
>>> sat = Orbit()
>>> jd, fr = 2458826.5, 0.8625
>>> e, r = sat.propagate(jd, fr)
>>> e
0
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    with guided_module(tmp_path, "orbitnat", SOURCE, [GUIDE]) as loaded:
        yield loaded


def test_a_method_the_guides_call_is_a_candidate_proven_by_what_they_show(
    module: ModuleType,
) -> None:
    found: dict[str, Any] = {
        target: candidate
        for candidate, _, target in describe_class(module.Orbit, "Orbit", module, True, "orbitnat")
    }
    propagate = found["orbitnat:Orbit.propagate"]
    assert propagate["signature"] == "Orbit.propagate(jd, fr, /)"
    [example] = propagate["examples"]
    assert example["arguments"] == {"jd": 2458826.5, "fr": 0.8625}
    assert (example["expected"], example["part"]) == (0, 0)
