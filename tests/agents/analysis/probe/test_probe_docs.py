"""returned_type: what a docstring says its callable returns."""

from __future__ import annotations

import pytest

from metaserver.agents.analysis.probe.probe_docs import returned_type

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
