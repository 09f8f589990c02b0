"""matches: a tool's result against the value its doctest shows, compared by meaning."""

from __future__ import annotations

import pytest

from metaserver.agents.validate.compare import (
    attribute_of,
    ellipsis_match,
    item_of,
    matches,
    normalise,
)
from metaserver.agents.validate.reprs import repr_value
from metaserver.contracts import JSON
from metaserver.probe.reprs import repr_shaped


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


# -- repr-style values and exact reals ---------------------------------------------------

EXACT_PI = {"number": 3.141592653589793, "text": "3.14159265358979323846264338327950288"}


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        (3.14, "real('3.14')"),
        (3.1400000001, "real('3.14')"),  # within half a unit of the last digit shown
        (1.4142135623730951, "mpfr('1.4142135623730951')"),
        (1.5, "mpfr('1.5', 128)"),  # text and a precision
        ("1/3", "Fraction(1, 3)"),
        ("1/3", "mpq(1,3)"),
        (1 / 3, "Fraction(1, 3)"),
        (12, "mpz(12)"),
        (2**100, f"mpz({2**100})"),
        ([1, 2, 3], "array([1, 2, 3])"),
        ([[1, 2], [3, 4]], "array([[1., 2.], [3., 4.]])"),
        (EXACT_PI, "mpfr('3.14159265358979323846264338327950288', 120)"),
        (EXACT_PI, "real('3.14159')"),
        ({"handle": "h_x", "type": "iv.Interval", "repr": "Interval(1, 5)"}, "Interval(1,  5)"),
        # a record by its named fields, numbers as shown; or travelling as its fields
        (
            {"handle": "h_v", "type": "v.Ver", "repr": "Ver(major=4, minor=0.5, tag=None)"},
            "Ver(major=4, minor=0.50, tag=None)",
        ),
        ({"major": 4, "minor": 0, "tag": None}, "Ver(major=4, minor=0, tag=None)"),
    ],
)
def test_repr_style_values_match_what_they_show(result: JSON, shown: str) -> None:
    assert matches(result, shown, "repr")


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        (3.15, "real('3.14')"),
        ("1/4", "Fraction(1, 3)"),
        (13, "mpz(12)"),
        ([1, 2], "array([1, 2, 3])"),
        (EXACT_PI, "mpfr('3.14159265358979323846264338327950289')"),
        ({"handle": "h_x", "type": "iv.Interval", "repr": "Interval(1, 6)"}, "Interval(1, 5)"),
        ([1, 2], "Point(1, 2)"),  # a record: not a shape this comparison claims to read
        (
            {"handle": "h_v", "type": "v.Ver", "repr": "Ver(major=5, minor=0)"},
            "Ver(major=4, minor=0)",
        ),
        (
            {"handle": "h_v", "type": "v.Tag", "repr": "Tag(major=4, minor=0)"},
            "Ver(major=4, minor=0)",
        ),
        ({"major": 4}, "Ver(major=4, minor=0)"),
        ("x", "not a call"),
        (True, "mpz(1)"),  # a bool is not a number
    ],
)
def test_repr_style_values_that_differ_do_not_match(result: JSON, shown: str) -> None:
    assert not matches(result, shown, "repr")


def test_an_exact_real_compares_its_number_or_its_text() -> None:
    assert matches(EXACT_PI, 3.141592653589793)
    assert matches(EXACT_PI, 3.14159)
    assert matches(EXACT_PI, "3.14159265358979323846264")
    assert not matches(EXACT_PI, "3.14159265358979323846265")
    assert not matches(EXACT_PI, 3.15)


@pytest.mark.parametrize(
    ("want", "checked"),
    [
        ("mpfr('1.5')", True),
        ("real('3.14')", True),
        ("Fraction(1, 3)", True),
        ("mpz(12)", True),
        ("array([1, 2])", True),
        ("gmpy2.mpfr('2.0', 64)", True),
        ("Decimal('1E+3')", True),
        ("Point(1, 2)", False),
        ("Color('red')", False),
        ("f(x)", False),
        ("[1, 2]", False),
        ("Fraction(1, 0)", False),
    ],
)
def test_the_probe_marks_only_what_the_comparison_reads(want: str, checked: bool) -> None:
    assert repr_shaped(want) is checked
    if checked:
        assert repr_value(want) is not None


def test_a_kept_handle_matches_a_plain_value_by_its_repr_as_a_doctest_does() -> None:
    # A constructor's result stays a handle (a receiver for later calls) even for a number.
    three = {"handle": "h_3", "type": "lib.Integer", "repr": "3"}
    assert matches(three, 3)
    assert not matches(three, 4)
    assert not matches(three, "3")  # a doctest would show '3' for the text
    assert matches({"handle": "h_s", "type": "lib.Name", "repr": "'ada'"}, "ada")
    assert matches({"handle": "h_n", "type": "lib.Nothing", "repr": "None"}, None)
    # a repr that is a container literal is read as one, as the doctest's text compares
    assert matches({"handle": "h_l", "type": "lib.Vector", "repr": "[1, 2]"}, [1, 2])
    assert not matches({"handle": "h_l", "type": "lib.Vector", "repr": "[1, 2]"}, [2, 1])


def test_a_handle_whose_repr_is_a_literal_is_compared_by_that_literals_value() -> None:
    finite = {"handle": "h_s", "type": "sympy.sets.sets.FiniteSet", "repr": "{1, 2, 3, 4}"}
    # the doctest shows {1, 2, 3, 4}: read as a set (wrapper "set", its sorted items)
    assert matches(finite, [1, 2, 3, 4], "set")
    assert not matches(finite, [1, 2, 3], "set")
    listed = {"handle": "h_l", "type": "pkg.Row", "repr": "[1, 'a']"}
    assert matches(listed, [1, "a"])
    # a repr that is no literal (a call, a truncated text) is not read as one
    truncated = {"handle": "h_t", "type": "pkg.Big", "repr": "{1, 2, 3..."}
    assert not matches(truncated, [1, 2, 3], "set")


def test_a_text_shown_by_str_or_print_is_compared_with_the_results_text() -> None:
    # A handle carries ``text`` (its str) when that is not its repr: str(v.bump()) -> '2.0'
    version = {"handle": "h_v", "type": "v.Version", "repr": "Version(2, 0)", "text": "2.0"}
    assert matches(version, "2.0", "str")
    assert not matches(version, "2.1", "str")
    assert not matches(version, "Version(2, 0)", "str")  # the repr is not what str shows
    # without ``text`` its repr is its str
    assert matches({"handle": "h_p", "type": "p.Pt", "repr": "<1, 2>"}, "<1,  2>", "str")
    # a capped text: the part it kept
    long = {"handle": "h_l", "type": "p.Big", "repr": "Big()", "text": "x" * 197 + "..."}
    assert matches(long, "x" * 300, "str") and not matches(long, "y" * 300, "str")
    # a plain result: a text without quotes, a number by its str (or a literal's value,
    # to the shown precision), None and booleans as print shows them
    assert matches("3.4.5-pre.3", "3.4.5-pre.3", "str")
    assert not matches("3.4.5", "'3.4.5'", "str")
    assert matches(2.0, "2.0", "str") and matches(-2.9999999999999982, "-3.0", "str")
    assert not matches(2.5, "2.0", "str")
    assert matches(None, "None", "str") and matches(True, "True", "str")
    assert matches([1, "a"], "[1, 'a']", "str") and matches([1, 2], "(1, 2)", "str")
    assert not matches([1, 2], "(2, 1)", "str")
    assert matches({"number": 0.1, "text": "0.1000000000000000000001"}, "0.1", "str")
    # doctest writes an empty line of output as <BLANKLINE>
    shown = "Identity\n--------\n<BLANKLINE>\nMatrix : [1, 0]"
    table = {
        "handle": "h_t",
        "type": "p.Op",
        "repr": "Op()",
        "text": "Identity\n--------\n\nMatrix : [1, 0]",
    }
    assert matches(table, shown, "str") and not matches(table, shown.replace("1, 0", "0, 1"), "str")
    # a capped text (the first 197 characters and "...") against a long shown table
    kept = ("Identity\n--------\n\nMatrix : " + "[ 1.  0.]\n" * 30)[:197] + "..."
    capped = {"handle": "h_c", "type": "p.Op", "repr": "Op()", "text": kept}
    long_shown = "Identity\n--------\n<BLANKLINE>\nMatrix : " + "[ 1.  0.]\n" * 30
    assert matches(capped, long_shown, "str")
    assert not matches(capped, long_shown.replace("Identity", "Inverse"), "str")
    # a datetime travels as ISO text; print shows it with a space (dateutil's default_tzinfo)
    assert matches("2014-01-01T12:30:00+00:00", "2014-01-01 12:30:00+00:00", "str")
    assert not matches("2014-01-01T12:30:00+00:00", "2014-01-01 12:30:00+01:00", "str")
    assert matches("12:30:00", "12:30", "str") and not matches("2024-01-02", "2024-01-03", "str")


def test_a_handle_of_an_array_matches_the_list_shown_by_its_values() -> None:
    handle = {"handle": "h1", "type": "numpy.ndarray", "repr": "array([1., 2., 6.])"}
    assert matches(handle, [1.0, 2.0, 6.0])
    assert not matches(handle, [1.0, 2.0, 7.0])


def test_a_repr_differing_only_in_its_address_or_module_path_matches() -> None:
    handle = {
        "handle": "h2",
        "type": "pkg._core.Model",
        "repr": "<pkg._core.Model object at 0x7f12ab34>",
    }
    assert matches(handle, "<pkg.Model object at 0x5a2c0010>", "repr")
    assert not matches(handle, "<pkg.Other object at 0x5a2c0010>", "repr")


def test_the_item_a_source_unpacked_is_compared_at_its_place() -> None:
    # ``cA, cD = dwt(x)`` then ``cA``: a tuple travels as a list, a named tuple as an object
    assert item_of([[2.12, 4.95], [-0.71]], 0) == [2.12, 4.95]
    assert item_of({"error": 0, "position": [1.0]}, 1) == [1.0]
    assert item_of([1, 2], None) == [1, 2]
    assert item_of([1, 2], 2) is None and item_of(5, 0) is None
    handle = {"handle": "h1", "type": "Pair", "repr": "Pair(1, 2)"}
    assert item_of(handle, 0) is None  # an object without a JSON form has no items to take
    assert matches(item_of([[2.12, 4.95], [-0.71]], 1), [-0.71])
    # ``cA, (cH, cV, cD) = dwt2(x)`` then ``cV``: one index per level
    assert item_of([[[2.0]], [[[0.1]], [[0.2]], [[0.3]]]], [1, 1]) == [[0.2]]
    assert item_of([[[2.0]], {"h": [[0.1]], "v": [[0.2]]}], [1, 1]) == [[0.2]]
    assert item_of([[[2.0]], [[0.1]]], [1, 5]) is None and item_of([[1], 2], [1, 0]) is None


def test_an_attribute_is_read_from_a_handles_fields_or_a_records_keys() -> None:
    handle: JSON = {"handle": "h_1", "type": "m.Fit", "repr": "<Fit>", "fields": {"nobs": 3}}
    assert attribute_of(handle, "nobs") == (True, 3)
    assert attribute_of(handle, "params") == (False, None)  # not shown: nothing to compare
    assert attribute_of({"handle": "h_1", "type": "m.Fit", "repr": "<Fit>"}, "nobs")[0] is False
    assert attribute_of({"low": 1, "high": 2}, "high") == (True, 2)  # a named tuple's field
    assert attribute_of([1, 2, 3], "dtype") == (False, None)  # its list does not tell it
    assert attribute_of({"number": 1.5, "text": "1.5"}, "text") == (False, None)  # a real
    assert attribute_of([1, 2], None) == (True, [1, 2])


def test_a_dates_fields_are_read_from_its_iso_text_and_a_durations_from_its_seconds() -> None:
    assert attribute_of("2001-12-07T08:21:00", "year") == (True, 2001)
    assert attribute_of("2001-12-07", "day") == (True, 7)
    assert attribute_of("08:21:00", "minute") == (True, 21)
    assert attribute_of(90061.5, "days") == (True, 1)
    assert attribute_of(90061.5, "seconds") == (True, 3661)
    assert attribute_of("not a date", "year") == (False, None)
    assert attribute_of(2001, "year") == (False, None)  # a number has no year
    assert attribute_of(True, "days") == (False, None)  # nor a truth value a duration


def test_a_tolerance_the_source_asserted_widens_the_comparison() -> None:
    from metaserver.contracts import Tolerance

    numpy_close = Tolerance(rel=1e-05, abs=1e-08)
    # a p-value a test asserts with np.isclose: its exponent form shows no precision
    assert not matches(1.87701e-06, 1.877e-06)
    assert matches(1.87701e-06, 1.877e-06, tolerance=numpy_close)
    assert not matches(1.9e-06, 1.877e-06, tolerance=numpy_close)
    # item by item in arrays and records, and an integer expected within it too
    assert matches([[1.000001, 2.0]], [[1.0, 2]], tolerance=numpy_close)
    assert not matches([[1.1, 2.0]], [[1.0, 2]], tolerance=numpy_close)
    assert matches({"pval": 0.05000001}, {"pval": 0.05}, tolerance=numpy_close)
    # np.allclose(x, 0.0) broadcasts the number over the array
    assert matches([[0.0, 1e-09], [0.0]], 0.0, tolerance=numpy_close)
    assert not matches([0.0, 0.1], 0.0, tolerance=numpy_close)
    assert not matches([], 0.0, tolerance=numpy_close)
    # never across kinds
    assert not matches("1.0", 1.0, tolerance=numpy_close)
    assert not matches(True, 1, tolerance=numpy_close)
    # the digits of a test's literal are no output's: 1.0 within numpy's tolerance, not to
    # one decimal
    assert matches(1.01, 1.0)
    assert not matches(1.01, 1.0, tolerance=numpy_close)


def test_a_shown_value_with_an_ellipsis_matches_as_doctest_matches_it() -> None:
    names = ["coif1", "coif2", "coif3", "coif17"]
    assert ellipsis_match(names, "['coif1', 'coif2', ...")
    assert ellipsis_match(names, "['coif1', ...,\n 'coif17']")  # spacing aside
    assert not ellipsis_match(names, "['coif2', ...")
    handle: JSON = {"handle": "h_1", "type": "pkg.Wave", "repr": "Wave(name='db1', len=2)"}
    assert ellipsis_match(handle, "Wave(name='db1', ...)")
    # a tuple travels as a list: its repr changed, so what it shows is not matched
    assert not ellipsis_match([1, 2, 3], "(1, 2, ...)")
    # numpy's repr around the list the JSON form holds
    shown = "array([[14, 14, 24],\n       [16, 17, 28]]...)"
    assert ellipsis_match([[14, 14, 24], [16, 17, 28]], shown)
    assert not ellipsis_match([[14, 14, 24], [16, 17, 29]], shown)


def test_an_array_printed_by_numpy_is_compared_as_its_numbers() -> None:
    shown = "[[ 1.5  2. ]\n [ 3.   nan]]"
    assert matches([[1.5, 2.0], [3.0, "nan"]], shown, "str")
    assert matches([[1.5004, 2.0], [3.0, "nan"]], shown, "str")  # within the digit shown
    assert not matches([[1.6, 2.0], [3.0, "nan"]], shown, "str")
    assert not matches([[1.5, 2.0], [3.0, 4.0]], shown, "str")
    assert not matches([1.5, 2.0, 3.0, "nan"], shown, "str")  # another shape
    assert matches([0, 0, 1], "[0 0 1]", "str") and not matches([0, 0, 2], "[0 0 1]", "str")


@pytest.mark.parametrize(
    ("result", "attribute", "value"),
    [
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "shape", [2, 3]),
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "ndim", 2),
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "size", 6),
        ([["a", "b"]], "shape", [1, 2]),
        ([], "shape", [0]),
    ],
)
def test_an_array_read_is_read_from_its_list(result: JSON, attribute: str, value: JSON) -> None:
    assert attribute_of(result, attribute) == (True, value)


def test_a_ragged_list_or_a_text_has_no_shape() -> None:
    assert attribute_of([[1, 2], [3]], "shape") == (False, None)
    assert attribute_of("abc", "shape") == (False, None)
    assert attribute_of(2.5, "shape") == (False, None)  # a float, or numpy's scalar: unknown
    assert attribute_of({"shape": [9]}, "ndim") == (False, None)


def test_an_output_of_ellipsis_alone_proves_nothing() -> None:
    assert ellipsis_match("any answer", "any ...")
    assert not ellipsis_match("any answer", "...")
    assert not ellipsis_match([1, 2], "[...]")
    assert ellipsis_match([1, 2], "[1, ...]")


def test_a_path_shown_with_a_placeholder_for_its_folders_is_the_answers_tail() -> None:
    answered = "/venv/lib/python3.11/site-packages/pydicom/data/test_files/CT_small.dcm"
    for shown in (
        "[path/to]/pydicom/data/test_files/CT_small.dcm",
        "/path/to/pydicom/data/test_files/CT_small.dcm",
        "<site-packages>/pydicom/data/test_files/CT_small.dcm",
    ):
        assert matches(answered, shown), shown
    # another file, a bare name after the placeholder, or an answer that is no absolute path
    assert not matches(answered, "[path/to]/pydicom/data/test_files/MR_small.dcm")
    assert not matches(answered, "/path/to/CT_small.dcm")
    assert not matches("data/test_files/CT_small.dcm", "[path/to]/data/test_files/CT_small.dcm")


def test_a_record_unpacked_into_its_items_is_its_constructors_positional_fields() -> None:
    """``iv = Interval(4, 7, (4, 7))``, then ``begin, end, data = iv`` and each shown."""
    handle = {"handle": "h_1", "type": "pkg.Interval", "repr": "Interval(4, 7, (4, 7))"}
    assert matches(handle, [4, 7, [4, 7]])
    assert not matches(handle, [4, 8, [4, 7]])
    keyed = {"handle": "h_2", "type": "pkg.Point", "repr": "Point(x=1, y=2)"}
    assert not matches(keyed, [1, 2])  # fields by name: no order to compare with
