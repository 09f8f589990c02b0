"""A doctest's output printed as pandas prints a frame or a series (probe/tables.py), or
shortened by doctest's ELLIPSIS, is a value to compare, shown rounded or not
(``doctest_lines.rounded``)."""

from __future__ import annotations

import inspect

from metaserver.contracts import Example, Tolerance
from metaserver.probe.examples import examples_for
from metaserver.probe.tables import table_shaped

FRAME = """\
       Source        SS  DF
0  Hair color  1360.726   3
1      Within  1001.800  15"""

SERIES = """\
x    1.5
y    2.0
Name: p, dtype: float64"""


def test_printed_frames_and_series_are_tables() -> None:
    assert table_shaped(FRAME) and table_shaped(SERIES)
    assert table_shaped("   a  b  \\\n0  1  2\n\n   c\n0  3")  # a wide frame, wrapped
    assert table_shaped("       W  pval\nTime\nPre  0.96  0.47\nPost  0.94  0.09")  # named index


def test_literals_reprs_text_and_single_lines_are_no_tables() -> None:
    for text in (
        "[[1, 2],\n [3, 4]]",
        "array([[1, 2],\n       [3, 4]])",
        "{'a': 1,\n 'b': 2}",
        "Traceback (most recent call last):\n  ValueError: no",
        "0  Hair color  1360.726",
        "A sentence\nthen",
        "dtype: float64",
    ):
        assert not table_shaped(text), text


def anova(data: str, dv: str) -> object:
    """A table of sums of squares.

    >>> aov = anova("pain", dv="threshold")
    >>> aov.round(3)
           Source        SS  DF
    0  Hair color  1360.726   3
    1      Within  1001.800  15
    >>> anova("pain", dv="other").round(decimals=2)
       Source    SS  DF
    0   Color  1.00   3
    >>> anova("pain", dv="third").round(2).T
       0
    SS 1
    """
    return None


def test_a_frame_shown_rounded_or_not_is_its_calls_expected_table() -> None:
    signature = inspect.signature(anova)
    found = examples_for(anova, {"anova"}, inspect.getdoc(anova), signature, {"data", "dv"})
    shown = [(e["arguments"]["dv"], e["wrapper"], e["has_expected"]) for e in found]
    # ``.round(n)`` shows the call's value to n digits, which the comparison to the digits
    # shown reads anyway; a read after it (``.T``) is no view of the call's own value
    assert shown == [("threshold", "table", True), ("other", "table", True)]
    assert found[0]["expected"].splitlines()[1].split() == ["0", "Hair", "color", "1360.726", "3"]


def wavelist(family: str) -> list[str]:
    """Wavelet names.

    >>> wavelist("coif")
    ['coif1', 'coif2', ...
    """
    return []


def test_an_output_with_an_ellipsis_is_matched_as_doctest_would() -> None:
    signature = inspect.signature(wavelist)
    [found] = examples_for(wavelist, {"wavelist"}, inspect.getdoc(wavelist), signature, {"family"})
    assert (found["wrapper"], found["expected"]) == ("ellipsis", "['coif1', 'coif2', ...")


def position(when: float) -> tuple[float, float]:
    """Where it is.

    >>> print(position(0.5))
    (-6102.44..., -986.33...)
    >>> position(1.5)
    0.3333...
    >>> position(2.5)  # doctest: +ELLIPSIS
    array([ 1.6933366...,  1.        ,  0.4211574...])
    >>> position(3.5)
    array([[ 0.5...,  2.25],
           [ 1.125...,  3.        ]], dtype=float32)
    >>> position(4.5)
    array([ 1.5..., nan])
    """
    return (0.0, 0.0)


def test_numbers_cut_by_an_ellipsis_are_values_within_their_last_digit() -> None:
    signature = inspect.signature(position)
    found = examples_for(position, {"position"}, inspect.getdoc(position), signature, {"when"})
    shown = [(e["expected"], e["wrapper"], e.get("tolerance")) for e in found]
    assert shown == [
        ([-6102.44, -986.33], None, {"rel": 0.0, "abs": 0.01}),  # printed: the same numbers
        (0.3333, None, {"rel": 0.0, "abs": 0.0001}),
        ([1.6933366, 1.0, 0.4211574], None, {"rel": 0.0, "abs": 1e-07}),  # numpy's repr
        ([[0.5, 2.25], [1.125, 3.0]], None, {"rel": 0.0, "abs": 0.1}),
        ("array([ 1.5..., nan])", "ellipsis", None),  # no literal inside: matched as text
    ]
    assert Example.model_validate(found[0]).tolerance == Tolerance(abs=0.01)
    # ``2.5123...e-05``: the cut digit's unit scaled by the exponent the number goes on with
    decayed = examples_for(decay, {"decay"}, inspect.getdoc(decay), inspect.signature(decay), {"t"})
    assert [(e["expected"], e["tolerance"]) for e in decayed] == [
        (2.5123e-05, {"rel": 0.0, "abs": 1e-09}),
        ([[0.25, 0.5], [1.75]], {"rel": 0.0, "abs": 0.01}),  # a tuple of arrays: its items
    ]


def decay(t: float) -> float:
    """What is left.

    >>> decay(9.0)
    2.5123...e-05
    >>> decay(10.0)
    (array([ 0.25...,  0.5       ]), array([ 1.75...]))
    """
    return 0.0
