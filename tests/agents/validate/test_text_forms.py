"""Printed output with what changes between runs, and a dependency's formatting, taken out."""

from __future__ import annotations

import pytest

from metaserver.agents.validate.text_forms import (
    masked,
    numpy_printed,
    plain_reprs,
    unwrapped_arrays,
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("array([1., 2., 3.])", "[1., 2., 3.]"),
        ("array([[1, 2], [3, 4]], dtype=int32)", "[[1, 2], [3, 4]]"),
        ("x = np.array([1.5]) and numpy.array([2])", "x = [1.5] and [2]"),
        ("array([0., 0.], shape=(1000,), dtype=float64)", "[0., 0.]"),
        ("(array([1]), array([2]))", "([1], [2])"),
        ("no arrays here", "no arrays here"),
        ("array(unclosed", "array(unclosed"),
    ],
)
def test_an_array_repr_is_the_list_it_shows(text: str, shown: str) -> None:
    assert unwrapped_arrays(text) == shown


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("mypkg 1.4.2", "mypkg 2.0.1rc1"),
        ("fit took 1.52 s", "fit took 0.98 s"),
        ("12.3 ms ± 1.1 ms per loop", "9.1 ms ± 0.2 ms per loop"),
        ("version 2.1", "version 2.3"),
        ("run on 2026-12-01 12:03:04", "run on 2025-01-30 08:00:00"),
        ("<pkg._core.Model object at 0x7f12ab34>", "<pkg.Model object at 0x55aa0100>"),
        ("Writing dataset to: /work/tmp3bdcw0td.dcm", "Writing dataset to: /work/tmp7o3_mfnk.dcm"),
        ("Writing dataset to: /work/tmp74d3w8y3.dcm", "Writing dataset to: /work/tmpgnbfyotp.dcm"),
        (
            "PosixPath('/path/to/pkg/data/test_files/ct.dcm')",
            "PosixPath('/venv/lib/python3.11/site-packages/pkg/data/test_files/ct.dcm')",
        ),
        ("'[path/to]/pkg/data/test_files/ct.dcm'", "'/home/u/src/pkg/data/test_files/ct.dcm'"),
    ],
)
def test_what_changes_between_runs_is_not_compared(first: str, second: str) -> None:
    assert first != second
    assert masked(first) == masked(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("mean 3.0", "mean 4.0"),
        ("3 items", "4 items"),
        ("<Model>", "<Fit>"),
        ("tmp_results.csv", "tmp_summary.csv"),  # a name the example chose
        ("/venv/pkg/data/ct.dcm", "/venv/pkg/data/mr.dcm"),  # the file is the code's
        ("http://host/a/b/c", "http://host/x/b/c"),  # an address, not an install
        ("ratio 1/2/3/4", "ratio 1/2/3/5"),
    ],
)
def test_values_stay_compared(first: str, second: str) -> None:
    assert masked(first) != masked(second)


def test_a_doctest_value_keeps_its_dates_and_versions() -> None:
    # A date library's date, a version parser's version: what the function computes.
    assert plain_reprs("2026-12-01 1.4.2") == "2026-12-01 1.4.2"
    assert plain_reprs("<a.b.C object at 0xdeadbeef>") == "<C object at 0x?>"


def test_what_print_shows_of_a_numpy_array_is_read_back() -> None:
    rows = (
        "[[-3431.31231107 -1029.5637769   5844.08710025]\n [   -1.5           2.            nan]]"
    )
    printed = numpy_printed(rows)
    assert printed is not None
    values, slack = printed
    assert values[0] == [-3431.31231107, -1029.5637769, 5844.08710025]  # type: ignore[index]
    assert slack == [5e-09] * 6  # a fixed-point array's numbers share their decimals
    assert numpy_printed("[0 0 0 0]") == ([0, 0, 0, 0], [0.5] * 4)
    assert numpy_printed("[1e-05 2.5e+03]") == ([1e-05, 2500.0], [5e-06, 50.0])
    # a Python list, an array numpy shortened, words: no array printed
    for text in ("[1, 2]", "[1. ... 3.]", "[a b]", "[1 2", "1 2"):
        assert numpy_printed(text) is None, text
