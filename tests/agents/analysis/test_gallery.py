"""Example scripts read as tutorials: sphinx-gallery blocks, parameters, skip reasons."""

from __future__ import annotations

from pathlib import Path

from tutorial_fixtures import PLOT_GROWTH

from metaserver.agents.analysis.gallery import blocks, example_candidate, find_examples
from metaserver.contracts import Candidate

PACKAGES = {"tutcalc"}


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_gallery_script_is_its_blocks_with_its_literals_as_parameters(tmp_path: Path) -> None:
    path = write(tmp_path, "examples/plot_growth.py", PLOT_GROWTH)
    made = example_candidate(path, tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.kind == "notebook" and made.summary == "Growth as a bar chart"
    assert made.notebook is not None and made.notebook.kind == "script"
    # The text blocks (comments only) run as nothing: three code blocks.
    assert len(made.notebook.cells) == 3
    assert "tutcalc.bar_chart" in made.notebook.cells[2].source
    # Bound after the imports and the two literals of the first block.
    assert [p.name for p in made.parameters] == ["years", "rate"]
    assert (made.notebook.parameters_cell, made.notebook.parameters_after) == (0, 4)
    (example,) = made.examples
    assert example.arguments == {"years": 4, "rate": 0.1} and not example.has_expected


def test_a_separator_inside_a_statement_keeps_the_script_whole() -> None:
    source = "def f():\n    x = 1\n# %%\n    return x\nf()\n"
    assert blocks(source) == [source]
    assert blocks("a = 1\n# %%\n# text only\n# %%\nprint(a)\n") == ["a = 1", "print(a)"]


def test_command_line_and_interactive_scripts_are_skipped(tmp_path: Path) -> None:
    cases = {
        "cli.py": ("import argparse\nimport tutcalc\n", "a command-line script (imports argparse)"),
        "argv.py": ("import sys\nimport tutcalc\nprint(sys.argv[1])\n", "reads sys.argv"),
        "ask.py": ("import tutcalc\nx = input()\n", "asks for input"),
        "other.py": ("import math\nprint(math.pi)\n", "does not use the package"),
        "net.py": ("import tutcalc, urllib.request\n", "needs the network (imports urllib)"),
        "bad.py": ("def (:\n", "not plain Python"),
    }
    for name, (text, reason) in cases.items():
        made = example_candidate(write(tmp_path, f"examples/{name}", text), tmp_path, PACKAGES)
        assert isinstance(made, str) and reason in made, (name, made)


def test_examples_are_found_under_example_folders_only(tmp_path: Path) -> None:
    for relative in (
        "examples/a.py",
        "docs/gallery/plot_b.py",
        "examples/__init__.py",
        "examples/_private/c.py",
        "tutcalc/d.py",
        "tests/examples/e.py",
        "docs/conf.py",
    ):
        write(tmp_path, relative, "import tutcalc\n")
    found = [p.relative_to(tmp_path).as_posix() for p in find_examples(tmp_path)]
    assert found == ["docs/gallery/plot_b.py", "examples/a.py"]
