"""The closeness a test asserts a value with, where it is looser than a shown number's.

Scientific test suites compare numbers within a tolerance more often than digit by digit:
``assert np.isclose(stats.at[0, "pval"], 1.877e-06)`` (numpy's ``rtol=1e-05, atol=1e-08``),
``assert np.allclose(x_out, [6.4, 4.5])``, ``assert_allclose(coef, ref, rtol=1e-4)``,
``assert_almost_equal(v, 0.3333, decimal=4)``. ``test_calls.asserted_pairs`` keeps only
the assertions as tight as validation's own comparison (half a unit of the last digit
shown); ``asserted_close`` reads the others with their tolerance, which the example carries
(``Example.tolerance``) so that validation compares within it, as the test did
(``validate/compare.matches``). An assertion looser than ``MAX_REL`` relative or
``MAX_ABS`` absolute proves too little to be a value, and is not read; an absolute one
(``delta``, ``places``) against a literal number is read relative to that number's size
(``delta=0.5`` on 5853226 metres is 1e-7 of it). Static only.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from metaserver.agents.repo_docs.test_calls import (
    CLOSE_ASSERTIONS,
    DECIMAL_ASSERTIONS,
    TOLERANCE_PLACES,
    TRUTH_ASSERTIONS,
    function_name,
    tolerance_ok,
)
from metaserver.contracts import Tolerance
from metaserver.probe.fold import literal_value

__all__ = ["MAX_ABS", "MAX_REL", "asserted_close"]

MAX_REL = 1e-4
MAX_ABS = 1e-4

_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
# The truth-valued closeness functions, and their defaults (relative, absolute) and the
# positions their tolerances may also take.
_NUMPY = {"allclose", "isclose"}
_NUMPY_DEFAULTS = (1e-05, 1e-08)
_MATH_DEFAULTS = (1e-09, 0.0)
_MODULES = {"np": "numpy", "numpy": "numpy", "math": "math"}
_APPROX_DEFAULTS = (1e-06, 1e-12)
_ALLCLOSE_DEFAULTS = (1e-07, 0.0)


def asserted_close(tree: ast.AST) -> Iterator[tuple[ast.expr, ast.expr, Tolerance]]:
    """(one side, other side, tolerance) of each closeness a test asserts that validation's
    own comparison would be too strict for: ``assert np.allclose(a, b)`` and kin (also given
    to a truth assertion), and the closeness assertions and ``pytest.approx`` whose stated
    tolerance is looser than a shown number's, within MAX_REL and MAX_ABS."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Call):
            found = _truth_valued(node.test)
        elif (
            isinstance(node, ast.Call)
            and function_name(node.func) in TRUTH_ASSERTIONS
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Call)
        ):
            found = _truth_valued(node.args[0])
        elif isinstance(node, ast.Call) and function_name(node.func) in CLOSE_ASSERTIONS:
            found = None if tolerance_ok(node) else _stated(node)
        elif isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            found = _approx(node.test)
        else:
            found = None
        if found is not None:
            yield found


def _truth_valued(call: ast.Call) -> tuple[ast.expr, ast.expr, Tolerance] | None:
    """``np.allclose(a, b, rtol=..., atol=...)``, ``np.isclose``, ``math.isclose``."""
    name = function_name(call.func)
    module = call.func.value if isinstance(call.func, ast.Attribute) else None
    owner = _MODULES.get(module.id) if isinstance(module, ast.Name) else None
    if len(call.args) < 2 or owner is None:
        return None
    if owner == "numpy" and name in _NUMPY:
        positions, keywords, defaults = 2, ("rtol", "atol"), _NUMPY_DEFAULTS
    elif owner == "math" and name == "isclose":
        positions, keywords, defaults = 99, ("rel_tol", "abs_tol"), _MATH_DEFAULTS
    else:
        return None
    tolerance = _tolerance(call, positions, keywords, defaults)
    return None if tolerance is None else (call.args[0], call.args[1], tolerance)


def _stated(call: ast.Call) -> tuple[ast.expr, ast.expr, Tolerance] | None:
    """A closeness assertion (``assert_allclose``, ``assert_almost_equal``,
    ``assertAlmostEqual``...) with the tolerance it states."""
    if len(call.args) < 2:
        return None
    name = function_name(call.func) or ""
    if name in DECIMAL_ASSERTIONS:
        places = [k.value for k in call.keywords if k.arg in ("decimal", "places")]
        places += call.args[2:3]
        delta = [k.value for k in call.keywords if k.arg == "delta"]
        try:
            if delta:
                absolute = float(literal_value(delta[0]))
            else:
                digits = int(literal_value(places[0])) if places else 7
                # numpy: abs(desired-actual) < 1.5 * 10**(-decimal); unittest: round to places
                absolute = (1.5 if name.startswith("assert_") else 0.5) * 10.0**-digits
        except _LITERAL_ERRORS:
            return None
        tight = _within(0.0, absolute) or absolute <= MAX_REL * _magnitude(call.args[:2])
        found = Tolerance(rel=0.0, abs=absolute) if tight else None
    else:
        start = TOLERANCE_PLACES.get(name)
        found = _tolerance(call, start or 99, ("rtol", "atol"), _ALLCLOSE_DEFAULTS)
    return None if found is None else (call.args[0], call.args[1], found)


def _magnitude(sides: list[ast.expr]) -> float:
    """The size of the number a closeness assertion compares with, where one side is a
    literal number (``assertAlmostEqual(inv["s12"], 5853226, delta=0.5)``: 0.5 is 1e-7 of
    it, as tight as a relative tolerance we accept); 0 otherwise."""
    for side in sides:
        try:
            value = literal_value(side)
        except _LITERAL_ERRORS:
            continue
        if isinstance(value, int | float) and not isinstance(value, bool):
            return abs(float(value))
    return 0.0


def _approx(test: ast.Compare) -> tuple[ast.expr, ast.expr, Tolerance] | None:
    """``assert x == pytest.approx(v, rel=1e-3)``: the value, at the tolerance it states."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return None
    left, right = test.left, test.comparators[0]
    for side, other in ((right, left), (left, right)):
        if (
            isinstance(side, ast.Call)
            and function_name(side.func) == "approx"
            and len(side.args) == 1
            and not tolerance_ok(side)
        ):
            tolerance = _tolerance(side, 1, ("rel", "abs"), _APPROX_DEFAULTS, side.args[:1])
            return None if tolerance is None else (other, side.args[0], tolerance)
    return None


def _tolerance(
    call: ast.Call,
    start: int,
    keywords: tuple[str, str],
    defaults: tuple[float, float],
    compared: list[ast.expr] | None = None,
) -> Tolerance | None:
    """The (relative, absolute) tolerance a call states by position from ``start`` or by
    keyword, its defaults elsewhere; None when unreadable or looser than we accept. An
    absolute one is read against the size of a literal number among ``compared``
    (``pytest.approx(23.1025, abs=0.001)``: 4e-5 of it), as a stated ``delta`` is."""
    values = list(defaults)
    given = dict(zip(keywords, call.args[start : start + 2], strict=False))
    given.update({str(k.arg): k.value for k in call.keywords if k.arg in keywords})
    for place, keyword in enumerate(keywords):
        if keyword in given:
            try:
                number = literal_value(given[keyword])
            except _LITERAL_ERRORS:
                return None
            if number is None:
                continue  # pytest.approx(v, rel=None): its default
            if not isinstance(number, int | float) or isinstance(number, bool) or number < 0:
                return None
            values[place] = float(number)
    relative, absolute = values
    if not _within(relative, absolute):
        sized = absolute <= MAX_REL * _magnitude(compared or [])
        if relative > MAX_REL or not sized:
            return None
    return Tolerance(rel=relative, abs=absolute)


def _within(relative: float, absolute: float) -> bool:
    return relative <= MAX_REL and absolute <= MAX_ABS
