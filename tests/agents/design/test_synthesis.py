"""synthesise_example: arguments that fit a tool's schema when no call shows any."""

from __future__ import annotations

import pytest

from metaserver.agents.design.synthesis import CODEC_VALUES, MATRIX, synthesise_example
from metaserver.contracts import Parameter


def _array(description: str | None) -> Parameter:
    return Parameter(name="A", kind="positional_or_keyword", codec="numpy", description=description)


@pytest.mark.parametrize(
    "description",
    ["a payoff matrix", "2 dimensional list/array", "A 2-D array", "shape (n, m)"],
)
def test_an_array_with_two_axes_gets_a_matrix(description: str) -> None:
    assert synthesise_example([_array(description)]).arguments == {"A": MATRIX}


@pytest.mark.parametrize("description", [None, "the initial population", "list of matrices"])
def test_any_other_array_gets_a_vector(description: str | None) -> None:
    assert synthesise_example([_array(description)]).arguments == {"A": CODEC_VALUES["numpy"]}
