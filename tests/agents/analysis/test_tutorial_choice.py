"""Tutorials ordered by what they show, not taken as the first ones found."""

from __future__ import annotations

from metaserver.agents.analysis.tutorial_choice import choose_tutorials, entry_points, runs_needed
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


def test_what_is_new_first_and_none_left_out() -> None:
    same = [tutorial(f"same{i}", "import pkg\npkg.f()") for i in range(3)]
    other = tutorial("other", "import pkg\npkg.g()\npkg.h()")
    chosen = choose_tutorials([*same, other], PACKAGES)
    # The one showing two names first, then one showing f, then those showing nothing new;
    # how many run is validation's time budget (validate/tutorial_budget.py).
    assert [c.name for c in chosen] == ["other", "same0", "same1", "same2"]


def test_stored_outputs_first_among_those_showing_as_much() -> None:
    fresh = tutorial("fresh", "import pkg\npkg.a()")
    stored = tutorial("stored", "import pkg\npkg.c()", stored=True)
    assert [c.name for c in choose_tutorials([fresh, stored], PACKAGES)] == ["stored", "fresh"]
