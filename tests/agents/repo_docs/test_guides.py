"""guide_sessions: a README's code as doctest sessions, one text per file."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.guides import guide_sessions

README = """\
# demo

```python
from demo import Dot
disc = Dot(1.0, 2.0).grow(
    3.0,
)
```

```bash
pip install demo
```

>>> Dot(3.0, 4.0).norm()
5.0
"""


def test_blocks_become_prompted_lines_and_sessions_keep_their_output(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "reference.md").write_text("```python\nnot_a_guide()\n```\n")
    (tmp_path / "docs" / "quickstart.md").write_text("```python\nx = Dot(0.0, 0.0)\n```\n")

    texts = guide_sessions(tmp_path)

    assert len(texts) == 2  # the README, then the quickstart; the reference page is no guide
    lines = texts[0].splitlines()
    assert ">>> Dot(3.0, 4.0).norm()" in lines
    assert lines[lines.index(">>> Dot(3.0, 4.0).norm()") + 1] == "5.0"
    assert ">>> from demo import Dot" in lines
    start = lines.index(">>> disc = Dot(1.0, 2.0).grow(")
    assert lines[start + 1 : start + 3] == ["...     3.0,", "... )"]
    assert "pip install demo" not in texts[0]
    assert texts[1] == ">>> x = Dot(0.0, 0.0)"


def test_a_page_in_a_folder_of_guides_is_a_guide(tmp_path: Path) -> None:
    # A tutorial's chapters are named for their topic, not "tutorial": their folder says it.
    chapters = tmp_path / "doc" / "src" / "tutorials" / "intro-tutorial"
    chapters.mkdir(parents=True)
    (chapters / "calculus.rst").write_text(".. code-block:: python\n\n    diff(x)\n")
    api = tmp_path / "doc" / "src" / "modules"
    api.mkdir(parents=True)
    (api / "calculus.rst").write_text(".. code-block:: python\n\n    internal(x)\n")
    helping = tmp_path / "doc" / "src" / "contributing" / "new-contributors-guide"
    helping.mkdir(parents=True)
    (helping / "writing-tests.md").write_text("```python\ndef test_it():\n    check(x)\n```\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "calculus.md").write_text("```python\nloose(x)\n```\n")

    assert guide_sessions(tmp_path) == [">>> diff(x)"]


def test_a_statement_continued_without_prompts_is_one_statement(tmp_path: Path) -> None:
    """``>>> h = Dot(1,`` then an indented line without ``...``: doctest reads the rest as
    output of a line that does not parse; it is the statement's continuation."""
    from metaserver.agents.repo_docs.usage import mine_usage

    readme = (
        ">>> from demo import Dot\n"
        ">>> h = Dot(1.0,\n"
        "            2.0)\n"
        ">>> h.norm()\n"
        "2.23606797749979\n"
    )
    (tmp_path / "README.md").write_text(readme)
    [session] = guide_sessions(tmp_path)
    assert session.splitlines()[2:4] == [">>> h = Dot(1.0,", "...             2.0)"]
    assert ">>> h.norm()\n2.23606797749979" in session
    assert mine_usage(tmp_path, {"Dot", "norm"}).documented == ["Dot", "norm"]
