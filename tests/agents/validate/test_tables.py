"""A printed frame or series against the tool's answer, cell by cell
(validate/tables.py)."""

from __future__ import annotations

import pytest

from metaserver.agents.validate.tables import table_differences
from metaserver.contracts import JSON

ANOVA = """\
       Source        SS  DF       MS      F  p_unc    np2
0  Hair color  1360.726   3  453.575  6.791  0.004  0.576
1      Within  1001.800  15   66.787    NaN    NaN    NaN"""


def _anova(f: float = 6.791407) -> list[JSON]:
    return [
        {"Source": "Hair color", "SS": 1360.7263, "DF": 3, "MS": 453.5754, "F": f,
         "p_unc": 0.004114, "np2": 0.575962},
        {"Source": "Within", "SS": 1001.8, "DF": 15, "MS": 66.786667, "F": None,
         "p_unc": "nan", "np2": "NaN"},
    ]  # fmt: skip


def test_a_frame_matches_its_printed_rounded_table() -> None:
    # text cells by their words, numbers within half a unit of the digits shown, NaN null
    # or the text a float NaN travels as
    assert table_differences(_anova(), ANOVA) == []


def test_a_cell_off_by_more_than_its_digits_is_a_difference() -> None:
    assert table_differences(_anova(f=6.7925), ANOVA) == [
        "'F' of row 0: shown 6.791, answered 6.7925"
    ]


def test_a_labelled_frame_with_a_list_cell() -> None:
    text = """\
              T  dof alternative  p_val          CI95
T_test  1.4    4   two-sided   0.23  [2.32, 9.08]"""
    frame: JSON = {
        "columns": ["T", "dof", "alternative", "p_val", "CI95"],
        "index": ["T_test"],
        "data": [[1.3968, 4, "two-sided", 0.2349, [2.3187, 9.0813]]],
    }
    assert table_differences(frame, text) == []
    frame["data"][0][4][1] = 9.1  # type: ignore[index]
    assert table_differences(frame, text) == [
        "'CI95' of row T_test: shown [ 2.32 , 9.08 ], answered [2.3187, 9.1]"
    ]


def test_named_columns_and_index_print_their_names_first() -> None:
    text = """\
target          0           1
sex
0       43.722772   52.277228
1       94.277228  112.722772"""
    frame: JSON = {
        "columns": ["0", "1"],
        "index": [0, 1],
        "data": [[43.7227722, 52.2772277], [94.2772277, 112.7227722]],
    }
    assert table_differences(frame, text) == []


def test_a_wide_frame_is_read_block_by_block() -> None:
    text = "   a  b  \\\n0  1  2   \n\n   c\n0  3  "
    assert table_differences([{"a": 1, "b": 2, "c": 3}], text) == []
    assert table_differences([{"a": 1, "b": 2, "c": 4}], text) == [
        "'c' of row 0: shown 3, answered 4"
    ]


def test_series_with_and_without_labels() -> None:
    named = "x    1.5\ny    2.0\nName: p, dtype: float64"
    assert table_differences({"name": "p", "index": ["x", "y"], "data": [1.5, 2.0]}, named) == []
    assert table_differences([1.5, 2.1], "0    1.5\n1    2.0\ndtype: float64") == [
        "'value' of row 1: shown 2.0, answered 2.1"
    ]


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ({"handle": "h_1", "type": "x", "repr": "x"}, ANOVA),  # no frame in the answer
        ([{"Source": "a", "SS": 1.0}], ANOVA),  # the header names other columns
        (_anova(), ANOVA.replace("1360.726", "...")),  # pandas elided a cell
        (_anova(), ANOVA.replace("Within", "Within here")),  # words do not line up
        ([1.5, 2.0], ANOVA),  # a list read as a series only where the text ends as one
        ({"columns": ["a"], "index": [[0, 1]], "data": [[1]]}, "     a\n0 1  1"),  # multi-level
    ],
)
def test_text_that_is_no_table_of_the_answer_is_not_read(answer: JSON, text: str) -> None:
    assert table_differences(answer, text) is None
