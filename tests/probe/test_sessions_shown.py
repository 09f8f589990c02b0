"""A method's result that the session bound to names, shown by a later line
(probe/sessions._show_pending): ``e, r = sat.propagate(2)`` then ``e`` showing ``0``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from probe_modules import guided_module

from metaserver.probe.members import describe_class
from metaserver.probe.script import name_steps

SOURCE = """
class Status:
    def __init__(self, code):
        self.code = code


class Orbit:
    def __init__(self, line):
        self.line = line

    def propagate(self, minutes):
        return 0, [float(minutes), 1.5]

    def period(self):
        return 90.5

    def status(self):
        return Status(7)

    def track(self, steps):
        return [steps, steps + 1], "ok"
"""

GUIDE = """
>>> sat = Orbit("ISS")
>>> e, r = sat.propagate(2)
>>> e
0
>>> p = sat.period()
>>> p = 3
>>> p
3
>>> s = sat.status()
>>> s.code
7
>>> points, note = sat.track(3)
>>> checked = len(note)
>>> wanted = [3, 4]
>>> points
[3, 4]
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    with guided_module(tmp_path, "orbitfx", SOURCE, [GUIDE]) as loaded:
        yield loaded


def examples(module: ModuleType, method: str) -> list[dict[str, Any]]:
    described = describe_class(module.Orbit, "Orbit", module, True, "orbitfx")
    candidates = [c for c, _, _ in described if c is not None]
    name_steps(candidates, {id(module.Orbit): candidates[0]})
    by_target = {c["target"]: c for c in candidates}
    return list(by_target[f"orbitfx:Orbit.{method}"]["examples"])


def test_an_unpacked_result_shown_later_is_the_methods_expected_item(module: ModuleType) -> None:
    [example] = examples(module, "propagate")
    assert example["arguments"] == {"minutes": 2}
    assert (example["has_expected"], example["expected"], example["part"]) == (True, 0, 0)
    assert [s["target"] for s in example["session"]] == ["orbitfx:Orbit"]
    assert "line" not in example  # not the repository's line unchanged: never blamed on it


def test_a_name_bound_again_shows_nothing_of_the_call(module: ModuleType) -> None:
    [example] = examples(module, "period")
    assert not example["has_expected"]


def test_an_attribute_shown_of_a_held_result_is_its_expected_value(module: ModuleType) -> None:
    [example] = examples(module, "status")
    expected = (example["has_expected"], example["expected"], example.get("attribute"))
    assert expected == (True, 7, "code")
    assert "line" not in example


def test_a_result_shown_after_other_lines_is_still_the_calls_value(module: ModuleType) -> None:
    # A test checks other things before the value it asserts (``phi, psi, x =
    # w.wavefun(level=3)``, then ``assert_allclose(x, ...)``, then ``phi``).
    [example] = examples(module, "track")
    assert (example["has_expected"], example["expected"], example["part"]) == (True, [3, 4], 0)
