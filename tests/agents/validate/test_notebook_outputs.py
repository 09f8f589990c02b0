"""The notebook-outputs check: stored outputs against a rerun's."""

from __future__ import annotations

from metaserver.agents.validate.notebook_outputs import compare_outputs, texts_match


def test_texts_match_numbers_within_three_percent() -> None:
    assert texts_match("115.7625", "115.76250000000002")
    assert texts_match("mean 1.02", "mean 1.0")
    assert not texts_match("mean 1.04", "mean 1.0")
    assert not texts_match("6.0", "7.0")
    assert texts_match("{'a': 1,\n 'b': 2}", "{'a': 1, 'b': 2}")
    assert not texts_match("{'a': 1}", "{'b': 1}")
    assert texts_match("<Thing object at 0x7f00aa>", "<Thing object at 0x55cc01>")
    assert not texts_match("1 2", "1 2 3")


def test_compare_outputs_keeps_every_pair() -> None:
    stored = [
        {"cell": 2, "stdout": "n 4\n", "text": "115.76"},
        {"cell": 3, "text": "7.0", "images": 1},
        {"cell": 9, "text": "1"},
    ]
    result = {
        "cells": [
            {"cell": 2, "stdout": "n  4", "text": "115.7625"},
            {"cell": 3, "stdout": "", "text": "6.0"},
        ],
        "figures": [{"cell": 3, "path": "x.png"}],
    }
    compared, differences = compare_outputs(result, stored)
    assert [(c["cell"], c["output"], c["match"]) for c in compared] == [
        (2, "stdout", True),
        (2, "value", True),
        (3, "value", False),
        (3, "figures", True),
    ]
    assert differences == ["cell 3 value: stored '7.0', got '6.0'", "cell 9: did not run"]
