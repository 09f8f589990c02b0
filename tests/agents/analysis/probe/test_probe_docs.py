"""returned_type: what a docstring says its callable returns."""

from __future__ import annotations

import pytest

from metaserver.agents.analysis.probe.probe_docs import _parsed, returned_type

NUMPY = """Respond.

Parameters
----------
sys : StateSpace
    The system.

Returns
-------
response : `FrequencyResponseData`
    The data.
"""


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (NUMPY, "`FrequencyResponseData`"),
        ("Make.\n\nReturns\n-------\nPoint\n    The point.\n", "Point"),
        ("Make.\n\nReturns:\n    Point: the point.\n", "Point"),
        ("Make.\n\n:rtype: Point\n", "Point"),
        ("Make a point.\n\n>>> make()\nPoint(0, 0)\n", None),
    ],
)
def test_the_first_documented_result_type(doc: str, expected: str | None) -> None:
    assert returned_type(doc) == expected


def test_lines_without_continuation_prompts_are_one_statement() -> None:
    doc = """
>>> h = Point('A',
           coords=[[0, 0],
                   [0, 1]])
>>> h.norm()
1.0
>>> text = "("
>>> text
'('
"""
    first, second, assigned, shown = _parsed(doc)
    # the lines doctest took for the first line's output close its bracket: one statement
    assert first.source.startswith("h = Point('A',\n") and first.source.endswith("[0, 1]])\n")
    assert first.want == ""
    assert (second.source, second.want) == ("h.norm()\n", "1.0\n")
    # a bracket inside a string opens nothing; an output that completes nothing stays one
    assert assigned.want == ""
    assert (shown.source, shown.want) == ("text\n", "'('\n")
