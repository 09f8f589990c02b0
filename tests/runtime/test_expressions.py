"""Functions as arguments (runtime.expressions): what an expression computes, and what it
refuses: imports, dunders, attribute escapes, lambdas, comprehensions, unbounded integers."""

from __future__ import annotations

import inspect
import math
import time

import pytest

from metaserver.runtime.decode import CodecError, decode
from metaserver.runtime.expressions import (
    MAX_CHARS,
    Expression,
    ExpressionError,
    decode_expression,
    expression_target,
    parse_expression,
)
from metaserver.runtime.handles import HandleTable


def function(text: str, variables: tuple[str, ...] = ("x",)) -> Expression:
    return parse_expression(text, list(variables), [])


def test_arithmetic_and_math_functions_in_the_variable() -> None:
    integrand = function("exp(-x**2)")
    assert integrand(0.5) == pytest.approx(math.exp(-0.25))
    assert function("math.sqrt(x) + pi")(4.0) == pytest.approx(2 + math.pi)
    assert function("x if x > 0 else -x")(-3) == 3
    assert function("1 < x <= 3 and x != 2")(2.5) is True
    assert function("abs(min(x, -4))")(1) == 4


def test_several_variables_by_position_and_by_name() -> None:
    model = function("a * t + b", ("t", "a", "b"))
    assert model(2, 3, 4) == 10
    assert model(t=2, a=3, b=4) == 10
    assert list(inspect.signature(model).parameters) == ["t", "a", "b"]
    assert function("x + 1")(1, "unused extra argument") == 2  # f(x, *args)
    with pytest.raises(TypeError, match="needs a value for b"):
        model(1, 2)


def test_vector_variable_by_subscript() -> None:
    assert function("x[0]**2 + x[1]**2")([3, 4]) == 25
    assert function("sum(x[1:])")([1, 2, 3]) == 5


def test_the_codec_reads_variables_from_its_target_or_the_value() -> None:
    handles = HandleTable()
    target = expression_target(["t"], [])
    assert target == "t@"
    assert decode("t * 2", f"expression:{target}", handles)(5) == 10
    given = {"expression": "u - v", "variables": ["u", "v"]}
    assert decode(given, "expression:x@", handles)(5, 2) == 3


def test_a_function_name_alone_is_that_function() -> None:
    assert decode_expression("sin", "x@") is math.sin
    assert decode_expression("math.cos", "x@") is math.cos


def test_the_library_module_is_searched_first() -> None:
    # ``statistics`` stands in for a library: its public functions are callable by name.
    mean_of = parse_expression("mean(x) + fsum([1])", ["x"], ["statistics"])
    assert mean_of([1, 2, 3]) == 3.0
    assert parse_expression("statistics.median(x)", ["x"], ["statistics"])([5, 1, 3]) == 3


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("__import__('os').system('true')", "attribute access"),
        ("__import__('os')", "'_'"),
        ("import os", "not an expression"),
        ("x.__class__.__bases__", "not a module"),
        ("math.__dict__", "'_'"),
        ("math.__loader__", "'_'"),
        ("x.real", "not a module"),
        ("(1).__class__", "attribute access"),
        ("math.sys", "no 'sys'"),
        ("statistics.sys.modules", "attribute access"),
        ("open('/etc/passwd')", "unknown name 'open'"),
        ("eval('1')", "unknown name 'eval'"),
        ("exec('1')", "unknown name 'exec'"),
        ("getattr(math, 'sys')", "unknown name 'getattr'"),
        ("globals()", "unknown name 'globals'"),
        ("type(x)", "unknown name 'type'"),
        ("(lambda y: y)(x)", "only a function named"),
        ("lambda: 1", "a lambda"),
        ("[y for y in range(10**9)]", "a comprehension"),
        ("sum(y for y in x)", "a comprehension"),
        ("{y: y for y in x}", "a comprehension"),
        ("(y := 1)", "an assignment"),
        ("min(*x)", "starred"),
        ("max(**x)", "starred"),
        ("x(1)", "not a function"),
        ("math(1)", "unknown name 'math'"),
        ("f'{x}'", "JoinedStr"),
        ("1 << 100000", "LShift"),
        ("x is None", "Is"),
        ("b'bytes'", "literal"),
        ("{1, 2}", "Set"),
        ("x" + " + x" * MAX_CHARS, "at most"),
    ],
)
def test_refused_at_decoding(text: str, says: str) -> None:
    with pytest.raises(ExpressionError, match=says.replace("(", r"\(")):
        parse_expression(text, ["x"], ["statistics"])


def test_a_refusal_reaches_the_client_as_a_codec_error() -> None:
    with pytest.raises(CodecError, match="'_'"):
        decode("math.__dict__", "expression:x@", HandleTable())


def test_a_module_the_environment_lacks_names_nothing() -> None:
    with pytest.raises(ExpressionError, match="not a module"):
        parse_expression("nonexistent_pkg_xyz.f(x)", ["x"], ["nonexistent_pkg_xyz"])


def test_a_variable_cannot_be_a_private_name() -> None:
    with pytest.raises(ExpressionError, match="cannot name a variable"):
        parse_expression("1", ["__x"], [])


@pytest.mark.parametrize(
    "text", ["9**9**9", "x**10**9", "10**5000", "x * 10**4000 * 10**4000", "'a' * 10**9"]
)
def test_huge_results_are_bounded_and_fast(text: str) -> None:
    started = time.monotonic()
    with pytest.raises(ExpressionError, match="past"):
        function(text)(7)
    assert time.monotonic() - started < 1.0


def test_large_but_bounded_results_still_compute() -> None:
    assert function("2**100 + x")(1) == 2**100 + 1
    assert function("x ** -2")(2) == 0.25
    assert function("'ab' * 3")(0) == "ababab"
