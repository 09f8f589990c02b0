"""The notebook-run check's judgements: the reference a run makes, reproduction, other
parameters."""

from __future__ import annotations

from metaserver.agents.validate.notebook_run import (
    MAX_LONE_RUNS,
    lone_variations,
    other_kinds,
    reference_outputs,
    reproduction,
    varied_arguments,
)
from metaserver.contracts import JSON, Parameter


def run(value: str, stdout: str = "", figure: str | None = "0f0f0f0f0f0f0f0f") -> JSON:
    files: list[JSON] = [{"path": "notebooks/r-1/out/chart.png", "bytes": 9, "hash": figure}]
    return {
        "cells": [
            {"cell": 0, "value": None, "text": None, "stdout": ""},
            {"cell": 2, "value": 1, "text": value, "stdout": stdout},
        ],
        "figures": [{"cell": 2, "path": "notebooks/r-1/figures/x.png", "hash": "ffff0000ffff0000"}],
        "files": files if figure else [],
    }


def test_a_run_makes_a_reference_in_the_shape_of_stored_outputs() -> None:
    assert reference_outputs(run("[1, 2]", "hi\n")) == [
        {"cell": 2, "stdout": "hi\n", "text": "[1, 2]", "images": ["ffff0000ffff0000"]}
    ]


def test_reproduction_compares_values_as_values_and_saved_figures() -> None:
    compared, differences = reproduction(run("[1.0, 2.0]"), run("array([1., 2.])"))
    assert differences == []
    assert {p["output"] for p in compared if isinstance(p, dict)} == {
        "value",
        "figures",
        "saved out/chart.png",
    }
    _, differences = reproduction(run("0.25"), run("0.91"))
    assert differences == ["cell 2 value: stored '0.25', got '0.91'"]
    _, differences = reproduction(run("1"), run("1", figure="f0f0f0f0f0f0f0f0"))
    assert differences == ["saved figure out/chart.png: differs"]


def test_other_parameters_move_each_number() -> None:
    parameters = [
        Parameter(name=n, kind="keyword_only", required=False, default=d)
        for n, d in (("n", 3), ("rate", 0.05), ("flag", True), ("label", "x"), ("zero", 0.0))
    ]
    defaults: dict[str, JSON] = {"n": 3, "rate": 0.05, "flag": True, "label": "x", "zero": 0.0}
    assert varied_arguments(parameters, defaults) == {
        "n": 4,
        "rate": 0.055,
        "flag": True,
        "label": "x",
        "zero": 0.0,
    }
    assert varied_arguments(parameters[2:4], {"flag": True, "label": "x"}) == {
        "flag": True,
        "label": "x",
    }


def test_other_kinds_of_outputs_are_differences_but_other_values_are_not() -> None:
    assert other_kinds(run("1", "a\n"), run("2", "b\n")) == []
    assert other_kinds(run("1", "a\n"), run("2", "", figure=None)) == [
        "cell 2: no printed output",
        "saved figure out/chart.png: not written",
    ]


def test_each_moved_parameter_is_tried_alone() -> None:
    arguments: dict[str, JSON] = {"ndim": 2, "nsamples": 50, "label": "x"}
    varied: dict[str, JSON] = {"ndim": 3, "nsamples": 51, "label": "x"}
    assert lone_variations(arguments, varied) == [
        ("ndim", {"ndim": 3, "nsamples": 50, "label": "x"}),
        ("nsamples", {"ndim": 2, "nsamples": 51, "label": "x"}),
    ]
    many = {f"p{i}": i for i in range(MAX_LONE_RUNS + 2)}
    moved = {name: value + 1 for name, value in many.items()}
    assert [name for name, _ in lone_variations(dict(many), dict(moved))] == [
        f"p{i}" for i in range(MAX_LONE_RUNS)
    ]
