"""Docs pages whose code blocks form one session, read as tutorials (issue 30)."""

from __future__ import annotations

from pathlib import Path

from page_fixtures import make_page_repo

from metaserver.agents.analysis.doc_pages import find_pages, page_candidate, page_cells
from metaserver.agents.analysis.notebooks import add_notebooks
from metaserver.contracts import Candidate, CodeReport

PACKAGES = {"pagecalc"}


def test_a_markdown_page_is_its_statements_in_order_with_what_it_shows(tmp_path: Path) -> None:
    root = make_page_repo(tmp_path / "pagecalc")
    made = page_candidate(root / "docs/tutorial.md", root, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.kind == "notebook" and made.summary == "Saving step by step"
    assert made.notebook is not None and made.notebook.kind == "page"
    # The shell block and the unlabelled output listing are not run.
    sources = [cell.source for cell in made.notebook.cells]
    assert sources == [
        "import pagecalc\n\nrate = 0.05",
        "account = pagecalc.Account(100.0)\naccount.deposit(100.0)",
        "account.grow(rate, 2)",
        "print(account.statement())",
    ]
    assert [p.name for p in made.parameters] == ["rate"]
    (example,) = made.examples
    # An expression shows what it printed and its value; a print is stdout.
    assert example.has_expected and example.expected == [
        {"cell": 2, "shown": "220.5"},
        {"cell": 3, "stdout": "balance 220.5\n"},
    ]


def test_a_page_that_shows_no_output_is_run_for_its_reference(tmp_path: Path) -> None:
    root = make_page_repo(tmp_path / "pagecalc")
    made = page_candidate(root / "docs/guide/usage.rst", root, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None and len(made.notebook.cells) == 2
    assert [p.name for p in made.parameters] == ["years", "start"]
    assert not made.examples[0].has_expected


def test_snippets_that_do_not_build_on_each_other_are_no_tutorial(tmp_path: Path) -> None:
    root = make_page_repo(tmp_path / "pagecalc")
    assert page_candidate(root / "docs/quickstart.md", root, PACKAGES) is None
    one_block = tmp_path / "docs" / "tutorial.md"
    one_block.parent.mkdir(parents=True)
    one_block.write_text("```python\nimport pagecalc\nx = pagecalc.interest(1.0, 0.5)\n```\n")
    assert page_candidate(one_block, tmp_path, PACKAGES) is None


def test_an_error_an_elision_and_a_skipped_example_compare_nothing() -> None:
    text = (
        ">>> import pagecalc\n"
        ">>> pagecalc.interest(1.0, 'x')\n"
        "Traceback (most recent call last):\n"
        "TypeError: no\n"
        ">>> pagecalc.Account(1.0)\n"
        "<pagecalc.Account object at ...>\n"
        ">>> pagecalc.slow()  # doctest: +SKIP\n"
        "3\n"
        ">>> for n in (1, 2):\n"
        "...     print(n)\n"
        "1\n"
        "2\n"
    )
    cells, stored = page_cells(text)
    assert [c.source for c in cells] == [
        "import pagecalc",
        "pagecalc.interest(1.0, 'x')",
        "pagecalc.Account(1.0)",
        "for n in (1, 2):\n    print(n)",
    ]
    # What a loop prints is stdout, not the cell's value.
    assert stored == [{"cell": 3, "stdout": "1\n2\n"}]


def test_pages_join_the_tutorials_and_readmes_do_not(tmp_path: Path) -> None:
    root = make_page_repo(tmp_path / "pagecalc")
    (root / "README.md").write_text(
        "# pagecalc\n\n```python\nimport pagecalc\n```\n\n```python\npagecalc.interest(1, 2)\n```\n"
    )
    assert root / "README.md" not in find_pages(root)
    report = add_notebooks(CodeReport(packages=["pagecalc"], candidates=[]), root)
    assert sorted(c.target for c in report.candidates) == [
        "docs/guide/usage.rst",
        "docs/tutorial.md",
    ]
    assert report.skipped == []


def test_a_fragment_that_reads_names_the_page_binds_later_is_left_out() -> None:
    text = (
        "```python\nfor i in range(3):\n    env.run(until=i)\n```\n\n"  # env: made below
        ">>> import pagecalc\n"
        ">>> def opened(start):\n...     return pagecalc.Account(start)\n"
        ">>> env = opened(2.0)\n"
        ">>> env.statement()\n'balance 2.0'\n\n"
        "```python\nfrom pagecalc import *\nprint(interest(env.balance, 0.5))\n```\n"
    )
    cells, stored = page_cells(text)
    # The function's body reads names when it is called, the star import binds unknown ones.
    assert [c.source.splitlines()[0] for c in cells] == [
        "import pagecalc",
        "def opened(start):",
        "env = opened(2.0)",
        "env.statement()",
        "from pagecalc import *",
    ]
    assert stored == [{"cell": 3, "shown": "'balance 2.0'"}]


def test_a_star_import_of_the_repositorys_own_module_binds_the_names_it_exports(
    tmp_path: Path,
) -> None:
    package = tmp_path / "src" / "starcalc"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from starcalc.core import grow, shrink\n__all__ = ['grow', 'Fitter']\n"
    )
    text = (
        "```python\nfrom starcalc import *\nf = Fitter()\n```\n\n"
        "```python\ngrow(start_values)\n```\n\n"  # start_values: bound nowhere
        "```python\nshrink(f)\n```\n\n"  # not in __all__: a star import does not bind it
        "```python\nf.fit(grow(2))\n```\n"
    )
    cells, _ = page_cells(text, tmp_path)
    assert [c.source.splitlines()[-1] for c in cells] == ["f = Fitter()", "f.fit(grow(2))"]
    # Another distribution's module, or no repository: its names are unknown, so nothing
    # after it is taken for a fragment.
    for module, root in (("numpy", tmp_path), ("starcalc", None)):
        page = f"```python\nfrom {module} import *\nf = 1\n```\n\n```python\ngrow(x)\n```\n"
        cells, _ = page_cells(page, root)
        assert len(cells) == 2, (module, root)
