"""A function that only reads what a session hands it leaves the receiver as it was
(probe/readers.py, through sessions.method_examples), and ``print(name)`` after a method's
last call shows the value its result holds."""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe import members
from metaserver.probe.members import describe_class
from metaserver.probe.readers import reads_only_arguments

SOURCE = """
class Sat:
    def __init__(self, epoch):
        self.epoch = epoch
        self.log = []

    def step(self, times):
        return [t + self.epoch for t in times], len(times)


def epoch_of(sat, scale=1):
    year = sat.epoch * scale
    if not isinstance(sat, Sat) or getattr(sat, "epoch", None) is None:
        raise TypeError("not a Sat")
    return year


def reset(sat):
    sat.epoch = 0


def logged(sat):
    sat.log.append(1)
    return len(sat.log)


def stored(sat):
    sat.log[0] = 1


def handed(sat):
    return epoch_of(sat)


def later(sat):
    return lambda: sat.epoch
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "satfx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("satfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["satfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["satfx"]


def _call(line: str) -> ast.Call:
    node = ast.parse(line).body[0]
    assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    return node.value


def test_only_a_function_that_reads_its_parameter_leaves_the_object_as_it_was(
    module: ModuleType,
) -> None:
    names = {"s", "other"}
    assert reads_only_arguments(module.epoch_of, _call("epoch_of(s)"), names)
    assert reads_only_arguments(module.epoch_of, _call("epoch_of(3, scale=2)"), names)
    assert reads_only_arguments(module.epoch_of, _call("epoch_of(sat=s, scale=2)"), names)
    for changes in ("reset", "logged", "stored", "handed", "later"):
        assert not reads_only_arguments(getattr(module, changes), _call(f"{changes}(s)"), names)
    # handed over inside something else, or to what is not a function of source
    assert not reads_only_arguments(module.epoch_of, _call("epoch_of([s])"), names)
    assert not reads_only_arguments(module.epoch_of, _call("epoch_of(*s)"), names)
    assert not reads_only_arguments(len, _call("len(s)"), names)


def _step_examples(module: ModuleType, readme: str) -> list[dict[str, Any]]:
    members.set_guides([readme])
    try:
        described = describe_class(module.Sat, "Sat", module, True, "satfx")
    finally:
        members.set_guides([])
    (step,) = [c for c, _, t in described if t == "satfx:Sat.step"]
    return list(step["examples"])


README = """\
>>> from satfx import Sat, epoch_of, reset
>>> s = Sat(3)
>>> epoch_of(s)
3
>>> e, n = s.step([1, 2])
>>> print(e)
[4, 5]
"""


def test_a_receiver_handed_to_a_reading_function_is_still_the_methods_receiver(
    module: ModuleType,
) -> None:
    [example] = _step_examples(module, README)
    assert [s["arguments"] for s in example["session"]] == [{"epoch": 3}]
    # ``print(e)`` after the method's last call: the value of the result's first item
    assert (example["expected"], example["part"], example["wrapper"]) == ("[4, 5]", 0, "str")
    # a function that sets what it is given: no replay builds that receiver again
    assert _step_examples(module, README.replace("epoch_of(s)\n3", "reset(s)")) == []
