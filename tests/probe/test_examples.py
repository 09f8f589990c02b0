"""examples: a doctest's literal calls as examples, the value a later line shows of a
result the session bound to names among them."""

from __future__ import annotations

import ast
import inspect

from metaserver.contracts import Example
from metaserver.probe.examples import Literals, examples_for


def dwt(data: list[float], wavelet: str) -> tuple[list[float], list[float]]:
    """Split a signal.

    >>> cA, cD = dwt([1, 2, 3, 4], "haar")
    >>> cA
    [2.12, 4.95]
    >>> cD
    [-0.71, -0.71]
    >>> low = dwt([5, 6], "haar")
    >>> low.sort()
    >>> low
    ([1.0], [2.0])
    >>> r = dwt([7, 8], "haar")
    >>> r
    ([10.6], [-0.71])
    >>> r = dwt([9, 9], "db1")
    >>> r
    ([12.7], [0.0])
    """
    return [], []


def _found() -> list[dict[str, object]]:
    signature = inspect.signature(dwt)
    return examples_for(dwt, {"dwt"}, inspect.getdoc(dwt), signature, {"data", "wavelet"})


def test_a_name_shown_after_it_was_bound_to_a_call_is_that_calls_value() -> None:
    proven = [(e["arguments"], e["expected"], e.get("part")) for e in _found() if e["has_expected"]]
    assert proven == [
        ({"data": [1, 2, 3, 4], "wavelet": "haar"}, [2.12, 4.95], 0),  # the first item shown
        ({"data": [7, 8], "wavelet": "haar"}, [[10.6], [-0.71]], None),
        ({"data": [9, 9], "wavelet": "db1"}, [[12.7], [0.0]], None),
    ]


def test_a_result_the_session_changed_shows_nothing_of_the_call() -> None:
    # an assigned call is an example all the same, with no output to compare
    [changed] = [e for e in _found() if e["arguments"]["data"] == [5, 6]]
    assert not changed["has_expected"]
    # no example of a shown name is the repository's line unchanged (no replay blames it)
    assert all("line" not in e for e in _found())


def dwt2(data: list[list[float]], wavelet: str) -> object:
    """Split an image.

    >>> coeffs = dwt2([[1, 1], [1, 1]], "haar")
    >>> cA, (cH, cV, cD) = coeffs
    >>> cV
    [[0.0]]
    >>> levels = dwt2([[2, 2], [2, 2]], "db1")
    >>> top = levels[1][2]
    >>> top
    [[1.5]]
    >>> same = dwt2([[3, 3], [3, 3]], "haar")
    >>> alias = same
    >>> alias
    [[9.0]]
    """
    return [], []


def test_an_item_of_a_held_result_unpacked_later_is_shown_at_its_place() -> None:
    found = examples_for(
        dwt2, {"dwt2"}, inspect.getdoc(dwt2), inspect.signature(dwt2), {"data", "wavelet"}
    )
    proven = [(e["arguments"]["wavelet"], e["expected"], e.get("part")) for e in found]
    assert proven == [
        ("haar", [[0.0]], [1, 1]),  # one index per level of the nested unpacking
        ("db1", [[1.5]], [1, 2]),  # an item read by literal indexes
        ("haar", None, None),  # a name bound to another name is not followed
    ]


def fit(values: list[float]) -> object:
    """Fit a level.

    >>> res = fit([1.0, 3.0])
    >>> res.level
    2.0
    >>> res.level
    5.0
    >>> low, high = fit([4.0, 6.0])
    >>> low.level
    1.0
    >>> other = fit([2.0])
    >>> other._cache
    {}
    """
    return object()


def test_an_attribute_shown_of_a_held_result_is_that_attributes_value() -> None:
    signature = inspect.signature(fit)
    found = examples_for(fit, {"fit"}, inspect.getdoc(fit), signature, {"values"})
    proven = [(e["arguments"], e["expected"], e.get("attribute")) for e in found]
    # the first line that shows it is the value; an unpacked item's attribute, or a private
    # one, is no value the tool returns
    assert proven == [
        ({"values": [1.0, 3.0]}, 2.0, "level"),
        ({"values": [4.0, 6.0]}, None, None),
        ({"values": [2.0]}, None, None),
    ]
    assert all("line" not in e for e in found)


def pair(n: int) -> tuple[list[float], list[float]]:
    """Times and readings.

    >>> first = pair(3)
    >>> first.shape == (9, 9)
    False
    >>> first.shape == (2, 3)
    True
    >>> times, values = pair(4)
    >>> (4,) == values.shape
    True
    >>> low, high = pair(5)
    >>> low.name == "t"
    True
    >>> other = pair(6)
    >>> other.shape == first.shape
    True
    >>> pair(7) == ([1.0], [2.0])
    True
    """
    return [], []


def test_a_comparison_shown_true_shows_the_compared_value() -> None:
    """``>>> sst.shape == (264,)`` then ``True``, a doctest's assertion, shows ``sst.shape``;
    an array's shape is read of an unpacked item too (what the item travels as holds it)."""
    found = examples_for(pair, {"pair"}, inspect.getdoc(pair), inspect.signature(pair), {"n"})
    proven = [(e["arguments"], e["expected"], e.get("part"), e.get("attribute")) for e in found]
    assert proven == [
        ({"n": 3}, [2, 3], None, "shape"),  # ``False`` shows nothing; the next line does
        ({"n": 4}, [4], 1, "shape"),
        ({"n": 7}, [[1.0], [2.0]], None, None),  # shown first: it shows a value
        ({"n": 5}, None, None, None),  # an unpacked item's own attribute: not returned
        ({"n": 6}, None, None, None),  # compared with no literal
    ]
    # Never the repository's line: run as written, it shows True, not the value.
    assert all("line" not in e for e in found)


def load_readings() -> dict[str, list[list[float]]]:
    """A dataset, as loaders answer one.

    >>> data = load_readings()
    >>> data.observations.shape
    (501, 2)
    >>> data._cache.shape
    (1,)
    """
    return {}


def test_the_shape_of_a_results_attribute_is_read_there() -> None:
    found = examples_for(
        load_readings,
        {"load_readings"},
        inspect.getdoc(load_readings),
        inspect.signature(load_readings),
        set(),
    )
    [proven] = [(e["expected"], e.get("attribute"), e.get("reads")) for e in found]
    assert proven == ([501, 2], "observations", [{"op": "shape"}])
    assert Example.model_validate(found[0]).reads[0].op == "shape"


def propagate(jd: list[float]) -> tuple[list[int], list[float]]:
    """Errors and positions.

    >>> e, r = propagate([2458826, 2458827])
    >>> print(e)
    [0 0]
    >>> print(r)
    (-6102.44..., -986.33...)
    """
    return [], []


def test_a_held_result_printed_is_its_text_or_the_numbers_an_ellipsis_cut() -> None:
    signature = inspect.signature(propagate)
    [found] = examples_for(propagate, {"propagate"}, inspect.getdoc(propagate), signature, {"jd"})
    # the first line that shows the result gives its value: numpy's printed text, compared
    # as numbers by validation (text_forms.numpy_printed)
    assert (found["expected"], found["wrapper"], found["part"]) == ("[0 0]", "str", 0)
    doc = (propagate.__doc__ or "").replace(">>> print(e)\n    [0 0]\n    ", "")
    [cut] = examples_for(propagate, {"propagate"}, inspect.cleandoc(doc), signature, {"jd"})
    assert (cut["expected"], cut["part"], cut["tolerance"]) == (
        [-6102.44, -986.33],
        1,
        {"rel": 0.0, "abs": 0.01},
    )


def spread(values: object) -> float:
    """The spread of random values.

    >>> import numpy as np
    >>> y = np.random.standard_normal((4, 2))
    >>> spread(y)
    1.25
    >>> r = spread(y)
    >>> r
    1.25
    """
    return 0.0


def test_unseeded_draws_are_data_for_arguments_never_for_a_shown_value() -> None:
    import numpy as np

    signature = inspect.signature(spread)
    found = examples_for(spread, {"spread"}, inspect.getdoc(spread), signature, {"values"})
    # the docs' shape, numbers of no known seed: the calls are examples, their values not
    assert [(np.shape(e["arguments"]["values"]), e["has_expected"]) for e in found] == [
        ((4, 2), False),
        ((4, 2), False),
    ]


def affine(points: list[int]) -> list[int]:
    """Moved points.

    >>> affine([1, 2])
    array([[14, 14, 24]]...)
    >>> affine([3])
    [4]
    """
    return []


def test_a_value_surely_read_is_tried_before_one_that_may_prove_unreadable() -> None:
    signature = inspect.signature(affine)
    found = examples_for(affine, {"affine"}, inspect.getdoc(affine), signature, {"points"})
    # an ELLIPSIS text may not print as the JSON form does: the call would pass by no-error
    # before the exact value below was tried (nibabel's apply_affine lost its value so)
    assert [(e["expected"], e["wrapper"]) for e in found] == [
        ([4], None),
        ("array([[14, 14, 24]]...)", "ellipsis"),
    ]
    assert Example.model_validate(found[1]).shown_loosely
    assert not Example.model_validate(found[0]).shown_loosely


def show_table(rows: int) -> None:
    """Print the table.

    >>> show_table(2)
    Squares:
    0->0
    1->1
    >>> show_table(1)
    one row
    >>> show_table(3)
    ...
    """


def test_text_of_several_lines_is_compared_as_doctest_compares_it() -> None:
    signature = inspect.signature(show_table)
    doc = inspect.getdoc(show_table)
    found = examples_for(show_table, {"show_table"}, doc, signature, {"rows"})
    assert [(e["arguments"], e["expected"], e["wrapper"]) for e in found] == [
        ({"rows": 2}, "Squares:\n0->0\n1->1", "ellipsis"),
        # one line that is no literal: an object's repr or printed text, read the same way
        # (where the answer does not show it, the call passes by no-error)
        ({"rows": 1}, "one row", "ellipsis"),
        ({"rows": 3}, None, None),  # ``...`` alone would match any answer: it shows nothing
    ]


def uarray(values: list[float], errors: list[float]) -> object:
    """Numbers with errors.

    >>> arr = uarray([1, 2], [0.01, 0.002])
    >>> print(arr)
    [1.0+/-0.01 2.0+/-0.002]
    """
    return None


def test_a_held_result_printed_as_other_than_numbers_shows_no_value() -> None:
    # the library's numbers print as text the tool's JSON answer never shows again
    signature = inspect.signature(uarray)
    [found] = examples_for(
        uarray, {"uarray"}, inspect.getdoc(uarray), signature, {"values", "errors"}
    )
    assert not found["has_expected"]


def test_a_lambda_of_plain_parameters_is_the_expression_codecs_explicit_form() -> None:
    # ``UnscentedKalmanFilter(lambda x, w: x + np.sin(w), ...)``: read as written, in the
    # lambda's own variables, never as code (runtime/expressions.py parses the text)
    line = "f(lambda x, w: x + np.sin(w), lambda: 1, lambda a=1: a, lambda *v: v)"
    node = Literals({}).inline(ast.parse(line).body[0].value)  # type: ignore[attr-defined]
    assert isinstance(node, ast.Call)
    written, *others = node.args
    assert isinstance(written, ast.Constant)
    assert written.value == {"expression": "x + np.sin(w)", "variables": ["x", "w"]}
    assert all(isinstance(other, ast.Lambda) for other in others)


def test_what_numpy_builds_over_names_and_their_lengths_fold_once_the_names_are_put_back() -> None:
    # hmmlearn's tutorial: ``X = np.concatenate([X1, X2])``, ``lengths = [len(X1), len(X2)]``
    import numpy as np

    literals = Literals({"np": np})
    for line in (
        "X1 = [[0.5], [1.0], [-1.0]]",
        "X2 = [[2.4], [4.2]]",
        "X = np.concatenate([X1, X2])",
        "lengths = [len(X1), len(X2)]",
    ):
        literals.note(ast.parse(line).body[0])
    nodes = literals.nodes  # type: ignore[attr-defined]
    assert ast.literal_eval(nodes["X"]) == [[0.5], [1.0], [-1.0], [2.4], [4.2]]
    assert nodes["X"].codec == "numpy:float64"
    assert ast.literal_eval(nodes["lengths"]) == [3, 2]
