"""pytest's arguments to a test (parametrize rows, literal fixtures) read as its own lines."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from metaserver.agents.repo_docs.test_params import MAX_ROWS, bind_parameters
from metaserver.agents.repo_docs.usage import mine_usage

TESTS = """\
import pytest
from stats import metrics

CASES = [([1, 2], 3), ([4], 4)]


@pytest.fixture(scope="module")
def pair():
    \"\"\"True and found breakpoints.\"\"\"
    return [100, 200, 500], [101, 201, 500]


@pytest.fixture(params=["a", "b"])
def flavour(request):
    return request.param


def test_distance(pair):
    truth, found = pair
    d = metrics.distance(truth, found)
    assert d > 0
    d = metrics.distance(truth, truth)
    assert d == 0


@pytest.mark.parametrize("values, expected", CASES)
def test_total(values, expected):
    assert metrics.total(values) == expected


@pytest.mark.parametrize(
    "x,expected",
    [
        pytest.param(0, 1, marks=pytest.mark.xfail),
        (2, 4),
        pytest.param(3, 6, id="three"),
        (4, 8),
        (5, 10),
    ],
)
def test_double(x, expected):
    assert metrics.double(x) == expected


@pytest.mark.parametrize("scale", [2])
def test_flavoured(flavour, scale):
    assert metrics.scaled(flavour, scale) == "aa"


@pytest.mark.parametrize("x", [1], indirect=True)
def test_indirect(x):
    assert metrics.double(x) == 2


@pytest.mark.parametrize("margin", range(1, 20, 2))
def test_recall(pair, margin):
    truth, found = pair
    p, r = metrics.recall(truth, truth, margin=margin)
    assert (p, r) == (1, 1)
    p, r = metrics.recall(truth, found, margin=margin)
    assert (r, p) == (0, 1)


class TestRatio:
    @pytest.mark.parametrize("a,b", [(1, 2)])
    def test_ratio(self, a, b):
        assert metrics.ratio(a, b) == 0.5
"""


def _calls(root: Path, name: str) -> list[tuple[object, object, bool]]:
    usage = mine_usage(root, {"distance", "total", "double", "scaled", "ratio", "recall"})
    return [(c.args, c.expected, c.has_expected) for c in usage.calls.get(name, [])]


def test_parametrised_rows_and_literal_fixtures_are_the_tests_values(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_metrics.py").write_text(TESTS)
    # a fixture's literal, unpacked in the test, reaches the call its assertion reads
    assert ([[100, 200, 500], [100, 200, 500]], 0, True) in _calls(tmp_path, "distance")
    # rows from a module constant, each a case with its expected value
    assert _calls(tmp_path, "total") == [([[1, 2]], 3, True), ([[4]], 4, True)]
    # a row pytest expects to fail is no case; at most MAX_ROWS rows are read
    doubled = _calls(tmp_path, "double")
    assert ([0], 1, True) not in doubled
    assert doubled[:MAX_ROWS] == [([2], 4, True), ([3], 6, True), ([4], 8, True)]
    assert ([5], 10, True) not in doubled
    # an indirect parameter is the fixture's business: no literal
    assert ([1], 2, True) not in doubled
    # a fixture with params stays a parameter: the call lends its other literal only
    (scaled,) = mine_usage(tmp_path, {"scaled"}).calls["scaled"]
    assert (scaled.args, scaled.unknown, scaled.has_expected) == ([None, 2], ["0"], False)
    # a method of a test class is bound too
    assert _calls(tmp_path, "ratio") == [([1, 2], 0.5, True)]


def test_range_rows_and_a_tuple_of_unpacked_names_are_read(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_metrics.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"recall"})
    recalls = [(c.args, c.kwargs, c.expected) for c in usage.calls["recall"] if c.has_expected]
    same = [[100, 200, 500], [100, 200, 500]]
    # each of range(1, 20, 2)'s first MAX_ROWS numbers is a row; ``p, r = recall(...)``
    # then ``(p, r) == (1, 1)`` asserts the result whole
    assert recalls == [(same, {"margin": m}, [1, 1]) for m in (1, 3, 5)[:MAX_ROWS]]
    # the names out of order (``(r, p)``) are no tuple the call returned


def test_rows_after_the_first_are_echoes_that_count_once(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_metrics.py").write_text(TESTS)
    usage = mine_usage(tmp_path, {"double", "total"})
    # each written call counts once, however many rows read it
    assert usage.tested == {"double": 2, "total": 1}


def test_a_test_without_literal_arguments_is_left_as_written() -> None:
    source = textwrap.dedent(
        """\
        @pytest.mark.parametrize("x", load("cases.csv"))
        def test_read(x, tmp_path):
            assert f(x) == 1
        """
    )
    tree = ast.parse(source)
    before = ast.dump(tree)
    assert bind_parameters(tree) == set()
    assert ast.dump(tree) == before
