"""Tutorials chosen by what they show and by a time budget, not the first ones found."""

from __future__ import annotations

from metaserver.agents.analysis.tutorial_choice import (
    RUN_SECONDS,
    choose_tutorials,
    entry_points,
    runs_needed,
)
from metaserver.contracts import Candidate, Example, NotebookCell, NotebookTarget, Parameter

PACKAGES = {"pkg"}


def tutorial(name: str, *sources: str, stored: bool = False, parameter: bool = True) -> Candidate:
    cells = [NotebookCell(cell=i, source=s) for i, s in enumerate(sources)]
    parameters = [Parameter(name="n", kind="keyword_only", required=False, default=1)]
    return Candidate(
        target=f"t/{name}.ipynb",
        name=name,
        signature="",
        parameters=parameters if parameter else [],
        kind="notebook",
        notebook=NotebookTarget(path=f"t/{name}.ipynb", cells=cells),
        examples=[Example(arguments={}, has_expected=stored, wrapper="notebook")],
    )


def test_entry_points_follow_aliases_and_from_imports() -> None:
    made = tutorial(
        "a",
        "import pkg.sub as s\nimport pkg\nfrom pkg.io import read as r",
        "s.f(1)\npkg.top.g()\nr('x')\nimport math\nmath.sqrt(2)",
    )
    assert entry_points(made, PACKAGES) == {"pkg.sub.f", "pkg.top.g", "pkg.io.read"}


def test_runs_needed_by_what_is_stored() -> None:
    assert runs_needed(tutorial("a", "1", stored=True)) == 1
    assert runs_needed(tutorial("a", "1")) == 3
    assert runs_needed(tutorial("a", "1", parameter=False)) == 2


def test_what_is_new_first_and_the_budget_decides() -> None:
    same = [tutorial(f"same{i}", "import pkg\npkg.f()") for i in range(3)]
    other = tutorial("other", "import pkg\npkg.g()\npkg.h()")
    budget = 3 * 3 * RUN_SECONDS  # three tutorials of three runs
    chosen, skipped = choose_tutorials([*same, other], PACKAGES, budget)
    # The one showing two names first, then one showing f; then the budget allows one more
    # of those showing nothing new.
    assert [c.name for c in chosen] == ["other", "same0", "same1"]
    assert [(s.target, s.reason) for s in skipped] == [
        ("t/same2.ipynb", f"over the tutorial time budget ({budget:g} s; shows nothing new)")
    ]


def test_a_cheaper_tutorial_still_fits_after_one_that_does_not() -> None:
    costly = tutorial("costly", "import pkg\npkg.a()\npkg.b()")
    stored = tutorial("stored", "import pkg\npkg.c()", stored=True)
    chosen, skipped = choose_tutorials([costly, stored], PACKAGES, budget=RUN_SECONDS * 2)
    assert [c.name for c in chosen] == ["stored"]
    assert skipped[0].reason.endswith("would show pkg.a, pkg.b)")
