"""Text a test computes from string literals (repo_docs/test_text.py): computed by a
whitelist, never more than MAX_TEXT, and nothing else read as text."""

from __future__ import annotations

import ast

import pytest

from metaserver.agents.repo_docs.test_text import MAX_TEXT, text_value

BOUND: dict[str, ast.expr] = {"LINE": ast.Constant("1 00005U 58002B"), "N": ast.Constant(3)}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("LINE[:-1] + '7'", "1 00005U 580027"),
        ("LINE[2]", "0"),
        ("LINE[::2]", "1005 80B"),
        ("LINE.split()", ["1", "00005U", "58002B"]),
        ("'a\\nb'.splitlines()", ["a", "b"]),
        ("LINE.replace('U', 'X').lower()", "1 00005x 58002b"),
        ("LINE.split(' ', 1)", ["1", "00005U 58002B"]),
    ],
)
def test_text_computed_from_literals(expression: str, value: object) -> None:
    assert text_value(ast.parse(expression, mode="eval").body, BOUND) == value


@pytest.mark.parametrize(
    "expression",
    [
        "OTHER[:2]",  # a name bound to nothing known
        "LINE[N:]",  # a bound that is a name, not a literal
        "LINE.encode()",  # no method of the whitelist
        "LINE.format(x)",
        "LINE[1:2:0]",  # a zero step
        "LINE[99]",  # out of range
        "N + N",  # numbers are fold.py's, not text
        "LINE.zfill(10**9)",
        "'x' * 3",
        f"'x'.ljust({MAX_TEXT + 1})",
    ],
)
def test_anything_else_is_no_text(expression: str) -> None:
    assert text_value(ast.parse(expression, mode="eval").body, BOUND) is None
