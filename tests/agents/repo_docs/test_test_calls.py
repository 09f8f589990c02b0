"""The test suite's calls: literals its tests build, and the values they assert."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path, PurePath

from metaserver.agents.repo_docs.test_calls import (
    asserted_pairs,
    bound_results,
    inline_literals,
    is_test_file,
)
from metaserver.agents.repo_docs.usage import mine_usage

TESTS = """\
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_almost_equal
from stats import core

POINTS = [1.0, 2.0, 3.0]

def test_mean():
    assert core.mean(POINTS) == pytest.approx(2.0)

def test_scale():
    x = np.array([1, 2])
    assert_allclose(core.scale(x, 2), [2.0, 4.0])

def test_loose():
    assert core.spread([1, 5]) == pytest.approx(4.1, abs=0.5)
    assert_allclose(core.median([1, 5]), 3.1, rtol=0.1)

def test_places(self):
    self.assertAlmostEqual(core.ratio(1, 3), 0.3333333)
    assert_almost_equal(core.ratio(2, 3), 0.67, decimal=2)

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert core.mean([n]) == n

def test_rebound():
    y = [4]
    y = [5]
    assert core.mean(y) == 5
"""


def _calls(root: Path, name: str) -> list[tuple[object, object, bool]]:
    usage = mine_usage(root, {"mean", "scale", "spread", "median", "ratio"})
    return [(c.args, c.expected, c.has_expected) for c in usage.calls.get(name, [])]


def test_asserted_values_of_the_test_suite_become_expected_values(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(TESTS)
    # a module constant and np.array of a literal are the literal the call is given
    assert ([[1.0, 2.0, 3.0]], 2.0, True) in _calls(tmp_path, "mean")
    assert _calls(tmp_path, "scale") == [([[1, 2], 2], [2.0, 4.0], True)]
    assert _calls(tmp_path, "ratio")[0] == ([1, 3], 0.3333333, True)
    # a tolerance looser than validation's comparison proves nothing we can check
    assert all(not has for _, _, has in _calls(tmp_path, "spread") + _calls(tmp_path, "median"))
    assert ([2, 3], 0.67, True) not in _calls(tmp_path, "ratio")
    # a parametrised test's rows are its literals (test_params.py); a name bound twice is none
    assert ([[1]], 1, True) in _calls(tmp_path, "mean")
    assert ([[2]], 2, True) in _calls(tmp_path, "mean")
    assert ([[5]], 5, True) not in _calls(tmp_path, "mean")
    usage = mine_usage(tmp_path, {"mean", "scale", "ratio"})
    assert usage.tested["mean"] == 3
    assert usage.tested == usage.counts


def test_doctest_files_and_examples_are_read(tmp_path: Path) -> None:
    (tmp_path / "stats" / "test").mkdir(parents=True)
    (tmp_path / "stats" / "test" / "core.doctest").write_text(
        ">>> from stats import tokenize\n>>> tokenize('a b')\n['a', 'b']\n"
    )
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "demo.py").write_text("import stats\nstats.grams(2)\nstats.f()\n")
    usage = mine_usage(tmp_path, {"tokenize", "grams", "f"})
    (call,) = usage.calls["tokenize"]
    assert (call.args, call.expected, call.has_expected) == (["a b"], ["a", "b"], True)
    assert usage.tested == {"tokenize": 1}
    assert usage.exampled == ["grams", "f"]


def test_inline_literals_leaves_receivers_and_other_scopes_alone() -> None:
    source = textwrap.dedent(
        """\
        def one():
            x = [1, 2]
            x.append(3)
            return f(x)

        def two():
            return f(x)
        """
    )
    inlined = ast.unparse(inline_literals(ast.parse(source)))
    # x may change after its binding (x.append): never the literal it was bound to
    assert "x.append(3)" in inlined
    assert "return f(x)" in inlined and "f([1, 2])" not in inlined
    plain = "def one():\n    y = (1, 2)\n    return f(y)\n\ndef two():\n    return f(y)\n"
    inlined = ast.unparse(inline_literals(ast.parse(plain)))
    assert "return f((1, 2))" in inlined
    assert inlined.endswith("return f(y)")  # ``two`` never bound y


def test_text_a_test_computes_from_its_constants_is_inlined() -> None:
    source = textwrap.dedent(
        """\
        TLE = "name\\n1 2 3\\n4 5 6\\n"
        LINE = "1 00005U 3"

        def test_parse():
            line0, line1, line2 = TLE.splitlines()
            bad = LINE[:-1] + "7"
            assert parse(line1, line2) == 6
            assert fix(bad) == LINE
            assert fix(LINE.upper()) == LINE
        """
    )
    inlined = ast.unparse(inline_literals(ast.parse(source)))
    # a string's methods never change it: its name stays a literal after ``TLE.splitlines()``
    assert "parse('1 2 3', '4 5 6') == 6" in inlined
    assert "fix('1 00005U 7') == '1 00005U 3'" in inlined
    assert "fix('1 00005U 3') == '1 00005U 3'" in inlined


def test_asserted_pairs_and_test_files() -> None:
    tree = ast.parse("assert f(1) == approx(2)\nassertEqual(g(1), 3, 'msg')\nassert h(1) < 2\n")
    pairs = [(ast.unparse(a), ast.unparse(b)) for a, b in asserted_pairs(tree)]
    assert sorted(pairs) == [("f(1)", "2"), ("g(1)", "3")]
    assert is_test_file(PurePath("tests/helpers.py"))
    assert is_test_file(PurePath("pkg/test_core.py"))
    assert is_test_file(PurePath("pkg/core_test.py"))
    assert is_test_file(PurePath("pkg/tests.py"))  # a package's own test module
    assert is_test_file(PurePath("pkg/_core_tests.py"))
    assert not is_test_file(PurePath("pkg/core.py"))
    assert not is_test_file(PurePath("pkg/contest.py"))


RESULTS = """\
from numpy.testing import assert_allclose
from sig import dwt, level, norm, total

def test_unpacked():
    x = [3, 7, 1, 1]
    cA, cD = dwt(x, "db2")
    assert_allclose(cA, [5.0, 7.0])
    assert_allclose(cD, [-2.0, -1.0])

def test_one_item():
    low, high = dwt([1, 2], "haar")
    assert low == [2.12]

def test_named():
    n = level(8, 2)
    assert n == 3
    n = level(16, 2)
    assert n == 4

def test_changed():
    r = norm([3, 4])
    r.sort()
    assert r == [5.0]

def test_branch(flag):
    t = total([1, 2])
    if flag:
        t = total([5])
    assert t == 3
"""


def test_a_result_bound_to_names_is_the_value_asserted_of_them(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sig.py").write_text(RESULTS)
    usage = mine_usage(tmp_path, {"dwt", "level", "norm", "total"})
    proven = {
        name: [(c.args, c.expected, c.part) for c in calls if c.has_expected]
        for name, calls in usage.calls.items()
    }
    # both items asserted: the whole result; one of two: that item, at its place
    assert ([[3, 7, 1, 1], "db2"], [[5.0, 7.0], [-2.0, -1.0]], None) in proven["dwt"]
    assert ([[1, 2], "haar"], [2.12], 0) in proven["dwt"]
    # a name bound again holds the later call's result from there on
    assert proven["level"] == [([8, 2], 3, None), ([16, 2], 4, None)]
    # a result the code may have changed (r.sort()), or a branch may have rebound, is not
    assert proven["norm"] == [] and proven["total"] == []
    assert usage.tested["level"] == 2  # each call counted once


NESTED = """\
from numpy.testing import assert_allclose
from sig import dwt2, swt

def test_levels():
    (cA2, cD2), (cA1, cD1) = swt([3, 7, 1, 3], "db1", level=2)
    assert_allclose(cD1, [-2.8, 4.2, -1.4, 0.0])
    assert_allclose(cA2, [7.0, 4.5, 4.0, 5.5])

def test_held_then_unpacked():
    coeffs = dwt2([[1, 1], [1, 1]], "haar")
    cA, (cH, cV, cD) = coeffs
    assert_allclose(cV, [[0.0]])

def test_one_level_of_a_held_result():
    res = swt([1, 2], "db1", level=1)
    cA, cD = res[0]
    assert cD == [-0.7, 0.7]

def test_one_result_read_two_ways():
    res = swt([5, 6], "db1", level=1)
    low, high = res
    first = res[0]
    assert high == [1.5]
    assert first == [7.5]

def test_aliased():
    coeffs = dwt2([[2, 2], [2, 2]], "haar")
    other = coeffs
    other.append(1)
    assert other == [[4.0]]
"""


def test_a_nested_unpacking_or_an_unpacked_held_result_asserts_the_item_at_its_place(
    tmp_path: Path,
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sig.py").write_text(NESTED)
    usage = mine_usage(tmp_path, {"dwt2", "swt"})
    proven = {
        name: [(c.args, c.expected, c.part) for c in calls if c.has_expected]
        for name, calls in usage.calls.items()
    }
    # the first item asserted, by place: [0, 0] (cA2) comes before [1, 1] (cD1)
    assert ([[3, 7, 1, 3], "db1"], [7.0, 4.5, 4.0, 5.5], [0, 0]) in proven["swt"]
    assert ([[1, 2], "db1"], [-0.7, 0.7], [0, 1]) in proven["swt"]
    # a name that holds the call's result, unpacked on the next line
    assert ([[[1, 1], [1, 1]], "haar"], [[0.0]], [1, 1]) in proven["dwt2"]
    # items of one result reached by an unpacking and by an index: the first by place, not
    # a whole put together from both (ase's suite once crashed the miner so)
    assert ([[5, 6], "db1"], [7.5], 0) in proven["swt"]
    # a name bound to another name is not followed: what it asserts is not dwt2's value
    assert all(args != [[[2, 2], [2, 2]], "haar"] for args, _, _ in proven["dwt2"])


BUILT_INLINE = """\
import datetime
import pytest
from sky import Observer, elevation, noon

def test_elevation():
    d = datetime.datetime(2001, 6, 21, 13, 11, 0)
    assert elevation(Observer(86, 77.2), d) == pytest.approx(23.1025, abs=1e-6)

def test_noon():
    assert noon(Observer(51.5, -0.1), datetime.date(2015, 12, 1)) == 11.8

def test_unknown(tz):
    assert noon(Observer(51.5, -0.1), datetime.datetime(2015, 12, 1, tzinfo=tz)) == 12.8
"""


def test_an_argument_built_in_place_or_a_moment_written_as_its_call_is_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sky.py").write_text(BUILT_INLINE)
    usage = mine_usage(tmp_path, {"Observer", "elevation", "noon"})
    (elevation,) = usage.calls["elevation"]
    # the package's class built in the argument's place is a setup step; a datetime held
    # by a name, or written in place, is the ISO text a datetime parameter decodes
    assert elevation.args == [None, "2001-06-21T13:11:00"] and elevation.expected == 23.1025
    assert elevation.built["0"].line == "Observer(86, 77.2)"
    assert (elevation.built["0"].args, elevation.built["0"].name) == ([86, 77.2], "Observer")
    proven = [(c.args, c.expected) for c in usage.calls["noon"] if c.has_expected]
    assert proven == [([None, "2015-12-01"], 11.8)]  # a zone the test was given: no value


def test_bound_results_follow_each_scope_in_order() -> None:
    tree = ast.parse("r = f(1)\nassert r == 2\ndef g():\n    assert r == 2\n")
    reads = {
        node.lineno: held
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and (held := bound_results(tree).get(id(node)))
    }
    assert list(reads) == [2]  # the function's own scope never bound r
    assert ast.unparse(reads[2].call) == "f(1)" and reads[2].part is None


def test_a_readme_session_shows_a_result_bound_before(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "Use it:\n\n>>> from sig import dwt\n>>> cA, cD = dwt([1, 2], 'haar')\n>>> cA\n"
        "[2.12]\n>>> r = dwt([3, 4], 'haar')\n>>> r\n([4.95], [-0.71])\n"
    )
    usage = mine_usage(tmp_path, {"dwt"})
    proven = [(c.args, c.expected, c.part) for c in usage.calls["dwt"] if c.has_expected]
    assert proven == [([[1, 2], "haar"], [2.12], 0), ([[3, 4], "haar"], [[4.95], [-0.71]], None)]


ATTRIBUTES = """\
from numpy.testing import assert_allclose
from est import Model, fit, run, summary

def test_fitted():
    res = fit([1.0, 2.0, 4.0], 2)
    assert res.nobs == 3
    assert_allclose(res.params, [0.5, 1.5])

def test_inline():
    assert Model("ols").name == "ols"

def test_passed_on():
    m = Model("wls")
    run(m)
    assert m.iterations == 4

def test_private():
    s = summary([1])
    assert s._cache == {}
"""


def test_an_attribute_asserted_of_a_result_is_the_value_of_that_attribute(
    tmp_path: Path,
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_est.py").write_text(ATTRIBUTES)
    usage = mine_usage(tmp_path, {"fit", "Model", "run", "summary"})
    proven = {
        name: [(c.args, c.expected, c.attribute) for c in calls if c.has_expected]
        for name, calls in usage.calls.items()
    }
    # the first attribute asserted of a bound result; one of the call's own result inline
    assert proven["fit"] == [([[1.0, 2.0, 4.0], 2], 3, "nobs")]
    assert proven["Model"] == [(["ols"], "ols", "name")]
    # an object handed to another call may have changed; a private attribute is no API
    assert proven["summary"] == [] and proven.get("run", []) == []
    # ``run(m)`` after ``m = Model("wls")``: an example of run on the object Model built
    (passed_on,) = usage.calls["run"]
    assert (passed_on.built["0"].name, passed_on.built["0"].args) == ("Model", ["wls"])
    assert ["wls"] in [c.args for c in usage.calls["Model"] if not c.has_expected]


def test_an_asserted_call_takes_the_place_of_calls_that_prove_nothing(tmp_path: Path) -> None:
    # ten unproven calls (two alike) come first, in the docs; the test's assertion last
    shown = "\n".join(f"    >>> Model('m{i % 9}')" for i in range(10))
    (tmp_path / "README.md").write_text(f"# est\n\n{shown}\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text(
        "from est import Model\n\ndef test_name():\n    assert Model('db3').name == 'db3'\n"
    )
    calls = mine_usage(tmp_path, {"Model"}).calls["Model"]
    assert (calls[0].args, calls[0].expected, calls[0].attribute) == (["db3"], "db3", "name")
    assert len(calls) == 8 and len({str(c.args) for c in calls}) == 8  # each once


def test_a_comparison_given_to_a_truth_assertion_is_asserted() -> None:
    tree = ast.parse("assert_(f(1) == 2)\nself.assertTrue(g(1) == 3)\nassert_(h(1) > 2)\n")
    pairs = [(ast.unparse(a), ast.unparse(b)) for a, b in asserted_pairs(tree)]
    assert pairs == [("f(1)", "2"), ("g(1)", "3")]


def test_a_method_of_a_value_is_no_call_of_the_function_of_that_name(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sys.py").write_text(
        "import control as ct\nfrom control import tf\n\n"
        "def test_response():\n    sys = tf([1], [1, 1])\n"
        "    assert sys.response([0.1]) == [0.9]\n    assert ct.response(3, [0.1]) == [0.8]\n"
        "    assert tf([1], [2]).response([1.0]) == [0.5]\n"
    )
    calls = mine_usage(tmp_path, {"response"}).calls["response"]
    assert [(c.args, c.method) for c in calls] == [
        ([[0.1]], True),
        ([3, [0.1]], False),  # through the module its import names
        ([[1.0]], True),
    ]


def test_an_argument_built_by_the_packages_own_callable_is_recorded(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_aov.py").write_text(
        textwrap.dedent(
            """\
            from stats import anova, read_dataset

            def test_anova(model):
                df = read_dataset("anova")
                aov = anova(dv="Pain", between="Hair", data=df).round(3)
                assert aov.at[0, "F"] == 6.791
                df.loc[[17], "Pain"] = 1
                assert anova(dv="Pain", data=df) == 1
                other = model.read_dataset("x")
                assert anova(dv="Cold", data=other) == 2
            """
        )
    )
    calls = mine_usage(tmp_path, {"anova", "read_dataset"}).calls["anova"]
    first, *rest = calls
    assert (first.kwargs["data"], first.expected, first.unknown) == (None, 6.791, [])
    built = first.built["data"]
    assert (built.name, built.args, built.kwargs) == ("read_dataset", ["anova"], {})
    # an object the test changed, and a value's method of that name, are no builds
    assert all(c.built == {} and c.unknown == ["data"] for c in rest)


def test_a_record_built_to_compare_a_result_with_is_its_fields(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_types.py").write_text(
        "from pkg import Group, group_type, kind\n\n"
        "def test_type():\n"
        "    actual = group_type(1279)\n"
        "    expect = Group(number=156, bns='156.49')\n"
        "    assert actual == expect\n"
        "    assert group_type(7) == pkg.Group(number=7, bns=None)\n"
        "    assert kind(3) == make(number=3)\n"  # a function's call: no record
        "    assert kind(4) == Group(4, bns='x')\n"  # a field by position: unknown name
        "    st = Group(number=1, bns='a')\n"
        "    assert st == Group(number=1, bns='a')\n"  # the record itself: nothing tested
    )
    usage = mine_usage(tmp_path, {"group_type", "kind", "Group"})
    found = [(c.args, c.expected) for c in usage.calls["group_type"] if c.has_expected]
    assert found == [([1279], {"number": 156, "bns": "156.49"}), ([7], {"number": 7, "bns": None})]
    assert not any(c.has_expected for c in usage.calls["kind"])
    assert not any(c.has_expected for c in usage.calls["Group"])
