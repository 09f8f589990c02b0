"""Usage mining: counts and literal calls from README, docs, tests and examples (static)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from metaserver.agents.repo_docs.code_blocks import doctest_examples
from metaserver.agents.repo_docs.usage import mine_usage

README = """\
# demo

    >>> add(1, 2)
    3
    >>> shout("hi")
    'HI!'

```python
from demo import add
add(10, b=5)
```
"""

TEST_FILE = """\
import demo

def test_add():
    assert demo.add(2, 2) == 4
    assert 7 == demo.add(3, 4)
    assert sorted(demo.letters("cab")) == ["a", "b", "c"]
    assert demo.letters("aab") == {"a", "b"}

def test_not_literal(x):
    demo.add(x, 1)
    assert demo.now() == []

class T:
    def test_eq(self):
        self.assertEqual(demo.shout("a"), "A!")
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_counts_and_literal_calls(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "README.md": README,
            "tests/test_demo.py": TEST_FILE,
            "src/mylib/__init__.py": "def add(a, b): return add(a, b)\n",  # library code: ignored
            "examples/run.py": "import demo\nprint(demo.shout('x'))\n",
        },
    )
    usage = mine_usage(tmp_path, {"add", "shout", "letters", "now", "unused"})
    assert usage.counts["add"] == 5  # 2 in README, 3 in the test file; none from src/
    assert usage.counts["shout"] == 3
    assert "unused" not in usage.counts
    add = {(tuple(c.args), tuple(sorted(c.kwargs.items()))): c for c in usage.calls["add"]}
    assert add[((1, 2), ())].expected == 3
    assert add[((2, 2), ())].has_expected
    assert add[((3, 4), ())].expected == 7  # the literal may be on either side
    assert not add[((10,), (("b", 5),))].has_expected
    assert all(c.has_expected for c in usage.calls["add"][:3])  # provable calls first
    letters = usage.calls["letters"]
    assert {(c.wrapper, str(c.expected)) for c in letters} == {
        ("sorted", "['a', 'b', 'c']"),
        ("set", "['a', 'b']"),
    }
    shout = [c for c in usage.calls["shout"] if c.has_expected]
    assert {c.expected for c in shout} == {"HI!", "A!"}


def test_unparseable_and_huge_files_are_skipped(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "tests/test_bad.py": "def broken(:\n",
            "tests/test_big.py": "add(1, 2)\n" * 60_000,
            "docs/guide.rst": ">>> add(1, 1)\nnot python output\n",
        },
    )
    usage = mine_usage(tmp_path, {"add"})
    assert usage.counts == {"add": 1}
    (call,) = usage.calls["add"]
    assert call.args == [1, 1] and not call.has_expected


def test_calls_expected_to_raise_are_not_examples(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_thing.py").write_text(
        "import pytest\n"
        "from pkg import easter\n\n"
        "def test_good():\n"
        "    assert easter(2024) == '2024-03-31'\n\n"
        "def test_bad():\n"
        "    with pytest.raises(ValueError):\n"
        "        easter(2024, method='invalid')\n"
        "    try:\n"
        "        easter(-1)\n"
        "    except ValueError:\n"
        "        pass\n"
    )
    usage = mine_usage(tmp_path, ["easter"])
    calls = usage.calls["easter"]
    assert [(c.args, c.kwargs) for c in calls] == [([2024], {})]
    assert calls[0].expected == "2024-03-31"


RST_README = """\
demo
====

.. image:: https://example.org/badge.svg

Parameters are built as with::

    import demo
    params = demo.Parameters()
    params['amp'] = demo.Parameter(value=1.2)

Install it with::

    pip install demo

.. note:: Not code::

A model the docs build runs:

.. jupyter-execute::
    :hide-output:

    model = demo.GaussianModel()
    model.guess([1, 2, 1], x=[0, 1, 2])

Done.
"""


def test_rst_literal_blocks_and_executed_directives_are_code(tmp_path: Path) -> None:
    from metaserver.agents.repo_docs.guides import guide_sessions
    from metaserver.agents.repo_docs.usage import documented_names

    (tmp_path / "README.rst").write_text(RST_README)
    wanted = {"Parameters", "Parameter", "GaussianModel", "guess", "install"}

    # the shell line is no Python; a directive's own line is no paragraph
    assert documented_names(tmp_path, wanted, {"guess"}) == [
        "Parameters",
        "Parameter",
        "GaussianModel",
        "guess",
    ]
    [session] = guide_sessions(tmp_path)
    assert ">>> params = demo.Parameters()" in session
    assert ">>> model.guess([1, 2, 1], x=[0, 1, 2])" in session
    assert "pip install" not in session and "Done." not in session


def test_a_result_shown_as_text_is_compared_as_text(tmp_path: Path) -> None:
    readme = """\
>>> print(label(3, 1))
3.1.0-rc
>>> str(label(2))
'2.0'
>>> repr(label(5))
"'5.0'"
>>> str(label(4))
4.0
>>> print(label(6), label(7))
6.0 7.0
"""
    tests = "def test_label():\n    assert str(label(9)) == '9.0'\n"
    write(tmp_path, {"README.md": readme, "tests/test_label.py": tests})
    usage = mine_usage(tmp_path, {"label"})
    shown = {tuple(c.args): (c.wrapper, c.expected) for c in usage.calls["label"]}
    # print shows the bare text, str a string literal, a test asserts the text
    assert shown[(3, 1)] == ("str", "3.1.0-rc")
    assert shown[(2,)] == ("str", "2.0")
    assert shown[(9,)] == ("str", "9.0")
    # repr(...) reads as the line would have shown: here a string
    assert shown[(5,)] == (None, "5.0")
    # a str shown as no string, and two results on one line: the calls alone
    assert shown[(4,)] == (None, None) and shown[(6,)] == (None, None)


def test_a_closing_fence_under_an_output_is_not_part_of_it() -> None:
    text = "```python\n>>> print(series(x))\n1 + x + O(x**2)\n```\n\nMore.\n"
    (example,) = doctest_examples(text)
    assert example.want == "1 + x + O(x**2)\n"
