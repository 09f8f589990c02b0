"""parameter_docs: a docstring's description of each parameter; returned_type: what it says
its callable returns (probe/docstrings.py)."""

from __future__ import annotations

import pytest

from metaserver.probe.docstrings import parameter_docs, returned_type

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


GOOGLE_CONTINUED = """Summary.

Args:
    a: the first line
        and its continuation.
    b (int): the second.
    c:
        on the next line.
"""

NUMPY_BARE = """Summary.

Parameters
----------
a
    Only a name.
b : list of int
    Several
    lines.

Returns
-------
int
    Something.
"""


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            GOOGLE_CONTINUED,
            {"a": "the first line", "b": "the second.", "c": "on the next line."},
        ),
        (NUMPY_BARE, {"a": "Only a name.", "b": "Several lines."}),
        (":param x: an x\n:param list[int] ys: some ys", {"x": "an x", "ys": "some ys"}),
        ("No parameter section.", {}),
    ],
)
def test_parameter_docs(doc: str, expected: dict[str, str]) -> None:
    assert parameter_docs(doc) == expected
