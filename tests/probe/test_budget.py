"""The probe's own budget: it reads what the guides call first, stops when the budget is
spent, and says what it left unread; run as in production, a script in a child."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from metaserver.agents.analysis.analyse import PROBE
from metaserver.contracts import CodeReport
from metaserver.probe.budget import Budget, named

INIT = '''\
"""A package whose guide calls one function of a submodule."""

from slowwalk.core import add


def scale(x: float, factor: float = 2.0) -> float:
    """Scale a number.

    >>> scale(3.0)
    6.0
    """
    return x * factor
'''

# Classes that take time to read (their signature sleeps, as a large class's reading does).
HEAVY = """
import time


class _Slow(type):
    @property
    def __signature__(cls):
        time.sleep(0.5)
        return None


class Heavy1(metaclass=_Slow):
    def __init__(self, a: int) -> None:
        self.a = a


Heavy2 = _Slow("Heavy2", (Heavy1,), {})
Heavy3 = _Slow("Heavy3", (Heavy1,), {})
Heavy4 = _Slow("Heavy4", (Heavy1,), {})
Heavy5 = _Slow("Heavy5", (Heavy1,), {})
Heavy6 = _Slow("Heavy6", (Heavy1,), {})
"""

CORE = '''\
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def unused(a: int) -> int:
    """Never called by the guides."""
    return a
'''

SLOW = '''\
import time

time.sleep({seconds})


def slow_{letter}(a: int) -> int:
    """Met only by walking the package."""
    return a
'''

LETTERS = "abcdefghijkl"  # twelve modules that sleep half a second each: 6 s
SPENT = "the probe's {} s budget was spent"
GUIDE = ">>> from slowwalk.core import add\n>>> add(2, 3)\n5\n"


def make_tree(root: Path, sleep: float, heavy: bool, letters: str = LETTERS) -> Path:
    package = root / "tree" / "slowwalk"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(INIT + (HEAVY if heavy else ""))
    (package / "core.py").write_text(CORE)
    for letter in letters:
        (package / f"{letter}_slow.py").write_text(SLOW.format(seconds=sleep, letter=letter))
    (root / "guides.json").write_text(json.dumps([GUIDE]))
    return root / "tree"


def run_probe(root: Path, budget: float | None, heavy: bool = False) -> tuple[CodeReport, float]:
    tree = make_tree(root, sleep=0.5, heavy=heavy)
    argv = [sys.executable, "-I", str(PROBE), "--output", str(root / "report.json")]
    argv += ["--path", str(tree), "--guides", str(root / "guides.json")]
    if budget is not None:
        argv += ["--budget", str(budget)]
    started = time.monotonic()
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
    elapsed = time.monotonic() - started
    return CodeReport.model_validate_json((root / "report.json").read_text()), elapsed


def test_a_spent_budget_reads_nothing_more_and_says_what_it_left(tmp_path: Path) -> None:
    """With no time at all nothing is described and no slow module imported, and the
    report says what was left: the documented modules' callables and the walk's modules."""
    report, elapsed = run_probe(tmp_path, budget=0)

    assert report.candidates == []
    assert elapsed < 3  # the twelve modules that sleep were not imported
    assert all(u.target == "slowwalk" for u in report.unread)
    walk, read = (u.reason for u in report.unread)
    assert walk == "modules from slowwalk.a_slow on not walked (2 walked): " + SPENT.format(0)
    assert read == (
        "3 (slowwalk:add, slowwalk:scale, slowwalk.core:unused) public callables not "
        "described: " + SPENT.format(0)
    )


def test_what_the_guides_call_is_read_first(tmp_path: Path) -> None:
    """Six classes that take half a second each to read come first in walk order, but the
    function the guide calls is read before them, and the budget runs out among them."""
    report, _ = run_probe(tmp_path, budget=1.5, heavy=True)

    targets = [c.target for c in report.candidates]
    assert "slowwalk:add" in targets
    assert report.candidates[-1].target == "slowwalk:add"  # in walk order: after Heavy1...
    assert len(targets) < 6  # add and the few classes read before the budget was spent
    walk, read = (u.reason for u in report.unread)
    assert walk.startswith("modules from slowwalk.a_slow on not walked")
    assert all(f"slowwalk:{name}" in read for name in ("Heavy6", "scale"))
    assert "slowwalk.core:unused" in read and "slowwalk:add" not in read


def test_a_budget_stops_a_slow_walk_between_modules(tmp_path: Path) -> None:
    """Each submodule's import sleeps: the walk stops at the budget, not at the end, and
    what it walked in that time but could not read is named."""
    report, elapsed = run_probe(tmp_path, budget=2)

    targets = {c.target for c in report.candidates}
    assert targets == {"slowwalk:add", "slowwalk:scale", "slowwalk.core:unused"}
    assert elapsed < 5
    walk, read = report.unread
    assert walk.reason.startswith("modules from slowwalk.")
    walked = int(walk.reason.partition("(")[2].partition(" walked")[0]) - 2  # package, core
    assert 1 <= walked < len(LETTERS)
    letters = LETTERS[:walked]
    assert read.reason.startswith(f"{walked} (")
    assert all(f"slowwalk.{x}_slow:slow_{x}" in read.reason for x in letters)


def test_without_a_budget_everything_is_read(tmp_path: Path) -> None:
    report, _ = run_probe(tmp_path, budget=None)

    assert len([c for c in report.candidates if "_slow:" in c.target]) == len(LETTERS)
    assert report.unread == []
    # In walk order, whatever the order of reading: the package, then its modules.
    assert [c.target for c in report.candidates][:3] == [
        "slowwalk:add",
        "slowwalk:scale",
        "slowwalk.core:unused",
    ]


def test_a_note_names_the_first_few_and_counts_them_all() -> None:
    assert named(["a", "b"]) == "2 (a, b)"
    assert named([str(i) for i in range(25)]).startswith("25 (0, 1, 2,")
    assert named([str(i) for i in range(25)]).endswith("19, ...)")
    budget = Budget(None, time.monotonic() - 1000)
    assert not budget.spent()  # no budget: never spent
    assert Budget(5, time.monotonic() - 6).spent()
