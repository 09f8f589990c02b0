"""find_examples: doctest calls found in a repository's text, with repr-style results."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.doc_examples import find_examples
from metaserver.contracts import Parameter

X = Parameter(name="x", kind="positional_or_keyword", json_schema={"type": "number"})


def test_literal_repr_and_unreadable_outputs(tmp_path: Path) -> None:
    (tmp_path / "README.rst").write_text(
        ">>> root(2)\n1.4142135623730951\n\n"
        ">>> root(4)\nmpfr('2.0')\n\n"
        ">>> root(9)\n<mpfr object at 0x1>\n"
    )
    examples = find_examples(tmp_path, "root", [X])
    shown = {e.arguments["x"]: (e.expected, e.has_expected, e.wrapper) for e in examples}
    assert shown == {
        2: (1.4142135623730951, True, None),
        4: ("mpfr('2.0')", True, "repr"),
        9: (None, False, None),
    }


def test_a_method_call_on_a_session_variable_is_not_the_function(tmp_path: Path) -> None:
    values = Parameter(
        name="values", kind="positional_or_keyword", json_schema={}, required=False, default=[]
    )
    (tmp_path / "guide.md").write_text(
        ">>> acc = Tally()\n>>> acc.total()\n6\n\n>>> total([1, 2])\n3\n\n>>> pkg.total([4])\n4\n"
    )
    examples = find_examples(tmp_path, "total", [values])
    # acc.total() is Tally.total's line: its 6 is never paired with the function total.
    assert [(e.arguments, e.expected) for e in examples] == [
        ({"values": [1, 2]}, 3),
        ({"values": [4]}, 4),
    ]
    # Found by name elsewhere, never the line as written for this callable.
    assert all(e.line is None for e in examples)


def test_a_text_shown_by_print_or_str_is_the_expected_text(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        ">>> print(root(2))\n1.41\n\n>>> str(root(4))\n'2.0'\n\n"
        ">>> print(root(-1))\nTraceback (most recent call last):\nValueError: math domain error\n"
    )
    shown = {
        e.arguments["x"]: (e.expected, e.has_expected, e.wrapper)
        for e in find_examples(tmp_path, "root", [X])
    }
    assert shown == {2: ("1.41", True, "str"), 4: ("2.0", True, "str"), -1: (None, False, None)}
