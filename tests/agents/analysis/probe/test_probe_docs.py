"""returned_type: what a docstring says its callable returns; documented_array: which
parameter types are numpy arrays in words."""

from __future__ import annotations

import sys

import numpy
import pytest

from metaserver.agents.analysis.probe.probe_docs import documented_array, returned_type

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


@pytest.mark.parametrize(
    "text",
    [
        "ndarray",
        "numpy.ndarray",
        "np.array",
        "array_like, optional",
        "array",
        "(n, m) array",
        "2d array",
        "ndarray or None",
        "np.array(dim_x, 1)",
        "numpy.ndarray of shape (n,)",
        "array, shape (n, m)",
        "ArrayLike",
        ":class:`numpy.ndarray`",
    ],
)
def test_array_words_are_numpy_arrays(text: str) -> None:
    assert documented_array(text) is numpy.ndarray


@pytest.mark.parametrize(
    "text", ["float or array", "list-like", "list of arrays", "arrays", "dict of array", "", None]
)
def test_other_words_are_not(text: str | None) -> None:
    assert "numpy" in sys.modules
    assert documented_array(text) is None


def test_no_array_without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # a package that never imported numpy takes plain lists, whatever its docs say
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    assert documented_array("ndarray") is None
