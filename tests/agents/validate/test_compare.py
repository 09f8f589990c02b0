"""matches: a tool's result against the value its doctest shows, compared by meaning."""

from __future__ import annotations

import pytest

from metaserver.agents.validate.compare import matches, normalise
from metaserver.contracts import JSON


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (1 / 3, 0.333),
        (1 / 3, 0.3333333333333333),
        (1 / 3, 0.33333),
        (2 / 3, 0.667),
        (0.1 + 0.2, 0.3),
        (3.0, 3.0),
        (-1 / 3, -0.333),
    ],
)
def test_floats_match_to_the_precision_shown(result: float, expected: float) -> None:
    assert matches(result, expected)


@pytest.mark.parametrize(
    ("result", "expected"),
    [(1 / 3, 0.34), (1 / 3, 0.33334), (2 / 3, 0.666), (0.3, 0.31), (1.0, 2.0)],
)
def test_floats_beyond_the_shown_precision_do_not_match(result: float, expected: float) -> None:
    assert not matches(result, expected)


def test_ints_and_floats_compare_by_value() -> None:
    assert matches(3, 3.0)
    assert matches(3.0, 3)
    assert matches([1, 2.0], [1.0, 2])
    assert not matches(3, 3.5)
    assert not matches(2, 3)


@pytest.mark.parametrize(
    ("result", "expected"),
    [(True, 1), (1, True), (False, 0), (0, False), (True, 1.0), (1.0, True), ([True], [1])],
)
def test_bool_never_equals_a_number(result: JSON, expected: JSON) -> None:
    assert not matches(result, expected)


def test_bools_and_none_match_themselves() -> None:
    assert matches(True, True)
    assert not matches(True, False)
    assert matches(None, None)
    assert not matches(None, 0)
    assert not matches(0, None)


def test_nested_containers_compare_element_by_element() -> None:
    expected = {"a": [1, {"b": 0.5, "c": ["x", None]}], "d": {"e": True}}
    assert matches({"a": [1, {"b": 0.5000001, "c": ["x", None]}], "d": {"e": True}}, expected)
    assert not matches({"a": [1, {"b": 0.6, "c": ["x", None]}], "d": {"e": True}}, expected)
    assert not matches({"a": [1, {"b": 0.5, "c": ["x"]}], "d": {"e": True}}, expected)
    assert not matches({"a": [1, {"b": 0.5, "c": ["x", None]}], "d": {"e": 1}}, expected)


def test_tuples_and_lists_are_the_same_after_json() -> None:
    assert matches((1, 2, 3), [1, 2, 3])
    assert matches([1, 2, 3], (1, 2, 3))
    assert matches({"k": (1, (2, 3))}, {"k": [1, [2, 3]]})
    assert normalise((1, (2,))) == [1, [2]]


def test_list_length_and_order_matter_without_a_wrapper() -> None:
    assert not matches([1, 2], [1, 2, 3])
    assert not matches([3, 1, 2], [1, 2, 3])


def test_sorted_wrapper_sorts_the_result() -> None:
    assert matches([3, 1, 2], [1, 2, 3], wrapper="sorted")
    assert matches(["b", "a"], ["a", "b"], wrapper="sorted")
    assert not matches([3, 1, 2, 2], [1, 2, 3], wrapper="sorted")
    # Mixed types do not compare in Python; they are still sorted, deterministically.
    assert matches([[2], 1], [[2], 1], wrapper="sorted") == matches(
        [1, [2]], [[2], 1], wrapper="sorted"
    )


def test_set_wrapper_ignores_order() -> None:
    assert matches([3, 1, 2], [1, 2, 3], wrapper="set")
    assert matches(["a", {"x": 1}], [{"x": 1}, "a"], wrapper="set")
    assert not matches([1, 2], [1, 2, 3], wrapper="set")
    assert not matches([1, 2, 4], [1, 2, 3], wrapper="set")


def test_strings_compare_with_whitespace_normalised() -> None:
    assert matches("hello   world\n", "hello world")
    assert matches("  a\tb  ", "a b")
    assert not matches("helloworld", "hello world")
    assert not matches("Hello world", "hello world")


def test_dict_keys_must_be_the_same() -> None:
    assert matches({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not matches({"a": 1}, {"b": 1})
    assert not matches({"a": 1, "b": 2}, {"a": 1})
    assert not matches({"a": 1}, {"a": 1, "b": 2})


def test_different_kinds_do_not_match() -> None:
    assert not matches("1", 1)
    assert not matches(1, "1")
    assert not matches("1.0", 1.0)
    assert not matches([1], {"0": 1})
    assert not matches({"a": 1}, [["a", 1]])
