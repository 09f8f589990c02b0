"""The notebook-outputs check: stored outputs against a rerun's."""

from __future__ import annotations

from png_images import checks, png, stripes

from metaserver.agents.validate.notebook_outputs import (
    compare_outputs,
    notebook_seconds,
    texts_match,
)
from metaserver.contracts import Evidence, ToolEvidence
from metaserver.runtime.phash import png_hash

STRIPES = png_hash(png(64, 48, stripes))
STRIPES_LARGER = png_hash(png(128, 96, lambda x, y: stripes(x // 2, y // 2)))
CHECKS = png_hash(png(64, 48, checks))


def test_texts_match_numbers_within_three_percent() -> None:
    assert texts_match("115.7625", "115.76250000000002")
    assert texts_match("mean 1.02", "mean 1.0")
    assert not texts_match("mean 1.04", "mean 1.0")
    assert not texts_match("6.0", "7.0")
    assert texts_match("{'a': 1,\n 'b': 2}", "{'a': 1, 'b': 2}")
    assert not texts_match("{'a': 1}", "{'b': 1}")
    assert texts_match("<Thing object at 0x7f00aa>", "<Thing object at 0x55cc01>")
    assert not texts_match("1 2", "1 2 3")
    assert texts_match("(np.float64(1.5), np.int64(2))", "(1.5, 2)")
    assert texts_match("np.str_('a')", "'a'")


def test_texts_match_reprs_that_changed_only_in_their_form() -> None:
    # A newer library spaces its reprs, repr() says "object at" where IPython did not, and
    # numpy 2 adds the shape of a summarised array: the values are the notebook's.
    assert texts_match("Text(0, 0.5, 'f')", "Text(0,0.5,'f')")
    assert texts_match("[<pkg.Line object at 0x7f4e72>]", "[<pkg.Line at 0x114b5a>]")
    assert texts_match(
        "array([[4., 4.],\n [4., 4.]], shape=(100, 100))", "array([[4., 4.],\n [4., 4.]])"
    )
    # A class renamed between versions, where the repr describes its object after a colon.
    assert texts_match(
        "<Axes: xlabel='week', ylabel='x'>", "<AxesSubplot:xlabel='week', ylabel='x'>"
    )
    # ...and nothing else is forgiven: other words, other numbers, another class.
    assert not texts_match("<Axes: xlabel='day'>", "<AxesSubplot:xlabel='week'>")
    assert not texts_match("Text(0, 0.7, 'f')", "Text(0,0.5,'f')")
    assert not texts_match("[<pkg.Bar object at 0x7f4e72>]", "[<pkg.Line at 0x114b5a>]")
    assert not texts_match("hello world", "helloworld")


def test_compare_outputs_keeps_every_pair() -> None:
    stored = [
        {"cell": 2, "stdout": "n 4\n", "text": "115.76"},
        {"cell": 3, "text": "7.0", "images": [STRIPES]},
        {"cell": 4, "images": [STRIPES]},
        {"cell": 5, "images": [STRIPES, None]},
        {"cell": 9, "text": "1"},
    ]
    result = {
        "cells": [
            {"cell": 2, "stdout": "n  4", "text": "115.7625"},
            {"cell": 3, "stdout": "", "text": "6.0"},
            {"cell": 4, "stdout": ""},
            {"cell": 5, "stdout": ""},
        ],
        "figures": [
            {"cell": 3, "path": "a.png", "hash": STRIPES_LARGER},
            {"cell": 4, "path": "b.png", "hash": CHECKS},
            {"cell": 5, "path": "c.png", "hash": STRIPES},
        ],
    }
    compared, differences = compare_outputs(result, stored)
    assert [(c["cell"], c["output"], c["match"]) for c in compared] == [
        (2, "stdout", True),
        (2, "value", True),
        (3, "value", False),
        (3, "figures", True),
        (4, "figures", False),
        (5, "figures", False),
    ]
    assert compared[3]["rerun"] == [{"hash": STRIPES_LARGER, "distance": 0}]
    assert differences[0] == "cell 3 value: stored '7.0', got '6.0'"
    assert differences[1].startswith("cell 4 figures: stored 1, drew 1 ([{'hash'")
    assert differences[2].startswith("cell 5 figures: stored 2, drew 1")
    assert differences[3] == "cell 9: did not run"


def test_notebook_seconds_come_from_notebook_runs_only() -> None:
    def item(name: str, check: str, result: object) -> ToolEvidence:
        evidence = Evidence(arguments={}, result=result, check=check)  # type: ignore[arg-type]
        return ToolEvidence(name=name, target=name, status="passed", evidence=evidence)

    evidence = [
        item("nb", "notebook-outputs", {"cells": [], "seconds": 1.25}),
        item("add", "expected-value", {"seconds": 9}),
        item("broken", "notebook-outputs", "error text"),
        item("made", "notebook-run", {"cells": [], "seconds": 0.5}),
    ]
    assert notebook_seconds(evidence) == {"notebook:nb": 1.25, "notebook:made": 0.5}


def test_numpy_2_array_reprs_match_the_lists_a_notebook_stored() -> None:
    assert texts_match("array([1., 2., 3.])", "[1.0, 2.0, 3.0]")
    assert texts_match("[1. 2. 3.]", "[1.0, 2.0, 3.0]")
    assert texts_match("{'a': array([0.5, 1.5])}", "{'a': [0.5, 1.5]}")
    assert not texts_match("array([1., 2., 4.])", "[1.0, 2.0, 3.0]")


def test_numpy_forms_of_one_value_match_and_other_values_do_not() -> None:
    # The held-out library's case: numpy 2's repr against the list numpy 1 stored.
    assert texts_match("array([ 9, -1,  3,  1])", "[9, -1, 3, 1]")
    assert texts_match("array([1, 2], dtype=int32)", "[1, 2]")
    assert texts_match("(np.int64(9), np.float64(2.5))", "(9, 2.5)")
    assert texts_match("[[ 9 -1]\n [ 3  1]]", "[[9, -1], [3, 1]]")  # a 2-d array's str
    assert texts_match("array([0.33333333, 0.5])", "[0.3333, 0.5]")
    assert not texts_match("array([9, -1, 3, 2])", "[9, -1, 3, 1]")
    assert not texts_match("[[9 -1]\n [3 2]]", "[[9, -1], [3, 1]]")


def test_versions_timings_and_dates_a_notebook_printed_are_not_compared() -> None:
    assert texts_match("tspkg 0.9.1\nfit in 0.71 s", "tspkg 0.8.0\nfit in 2.5 s")
    assert texts_match("started 2026-12-01 10:00:01", "started 2024-03-05 09:14:59")
    assert not texts_match("tspkg 0.9.1\nmse 0.71", "tspkg 0.8.0\nmse 2.5")


def test_a_doctest_shows_what_its_call_printed_then_its_value() -> None:
    # ``>>> env.run(until=3)`` printed two lines and returned None: doctest shows the lines.
    printed = {"cells": [{"cell": 4, "stdout": "at 0\nat 2\n", "text": None}]}
    compared, differences = compare_outputs(printed, [{"cell": 4, "shown": "at 0\nat 2"}])
    assert differences == [] and compared[0]["output"] == "shown"
    both = {"cells": [{"cell": 1, "stdout": "done\n", "text": "[1, 2]"}]}
    assert compare_outputs(both, [{"cell": 1, "shown": "done\n[1, 2]"}])[1] == []
    _, differences = compare_outputs(both, [{"cell": 1, "shown": "[1, 2]"}])
    assert differences and differences[0].startswith("cell 1 shown:")
