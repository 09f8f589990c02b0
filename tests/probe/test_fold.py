"""fold: arithmetic over numbers in documented calls folds to the number (a whitelisted
tree only), in doctests (examples.examples_for) and in the host's usage mining."""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
from pathlib import Path
from typing import Any

import numpy
import pytest

from metaserver.agents.repo_docs.usage import mine_usage
from metaserver.probe.examples import examples_for
from metaserver.probe.fold import folded, literal_value


def fold(text: str, namespace: dict[str, Any] | None = None) -> Any:
    return literal_value(ast.parse(text, mode="eval").body, namespace)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2**10", 1024),
        ("1/3", 1 / 3),
        ("-3*4", -12),
        ("7 // 2 + 7 % 2", 4),
        ("math.pi/4", math.pi / 4),
        ("np.pi/2", math.pi / 2),
        ("numpy.e", math.e),
        ("math.sqrt(2)", math.sqrt(2)),
        ("math.hypot(3, 4)", 5.0),
        ("[1/3, 2**3, 'a']", [1 / 3, 8, "a"]),
        ("{'angle': -math.tau/8}", {"angle": -math.tau / 8}),
        # ``lengths = [len(X1), len(X2)]`` once the names are the lists (examples.Literals)
        ("[len([[0.5], [1.0]]), len((1, 2, 3)), len('abc')]", [2, 3, 3]),
    ],
)
def test_arithmetic_over_numbers_folds_without_a_namespace(text: str, expected: Any) -> None:
    assert fold(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "10**1000",  # a result over the limit
        "2**5000",  # an exponent over the limit
        "9**9**9",  # never computed
        "1e200 * 1e200",  # inf
        "1/0",
        "5 % 0",
        "math.log(0)",
        "math.sqrt(-1)",
        "(-8)**(1/3)",  # complex
        "math.inf",  # JSON has no inf
        "os.getpid()",  # not whitelisted
        "math.floor(2.5)",  # a math function outside the list
        "math.sqrt(x=2)",
        "x + 1",  # a name
        "pi / 2",  # a bare name without a namespace
        "True + 1",
        "'a' * 3",
        "sympy.sqrt(2)",
        "len(x)",  # a name
        "len(3)",
        "len([1], [2])",
    ],
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        fold(text)


def test_a_session_that_rebinds_len_folds_none_of_it() -> None:
    with pytest.raises(ValueError):
        fold("len([1, 2])", {"len": lambda value: 0})


def test_a_bare_name_counts_by_what_it_is_bound_to() -> None:
    assert fold("radians(45)", {"radians": math.radians}) == pytest.approx(math.pi / 4)
    assert fold("sqrt(2)", {"sqrt": numpy.sqrt}) == pytest.approx(math.sqrt(2))
    assert fold("pi/2", {"pi": math.pi}) == pytest.approx(math.pi / 2)
    assert fold("np.pi", {"np": numpy}) == pytest.approx(math.pi)
    with pytest.raises(ValueError):
        fold("sqrt(2)", {"sqrt": lambda x: x})  # another library's sqrt: its own call
    with pytest.raises(ValueError):
        fold("pi/2", {"pi": object()})  # sympy's pi is no float
    with pytest.raises(ValueError):
        fold("np.pi", {"np": object()})  # np bound to something else: not numpy's pi
    node = ast.parse("f(pi, 2**3)", mode="eval").body
    # A name the session bound itself means what it made, not math's.
    assert ast.unparse(folded(node, {"pi": math.pi}, ignore={"pi"})) == "f(pi, 8)"
    assert ast.unparse(folded(node, {"pi": math.pi})) == f"f({math.pi!r}, 8)"


def test_a_statement_keeps_its_targets_and_unfoldable_calls() -> None:
    node = ast.parse("e = g(1/cos(x), 2*3)").body[0]
    assert ast.unparse(folded(node, {"cos": math.cos})) == "e = g(1 / cos(x), 6)"
    literal = ast.parse("[1, -2]", mode="eval").body
    assert folded(literal) is literal  # a literal already: the same node


def rotate(angle: float, times: int = 1) -> float:
    """Rotate.

    >>> rotate(math.pi/4)
    0.25
    >>> rotate(2**3, times=-3*4)
    2
    >>> rotate(math.floor(2.5))
    1
    """
    return angle


def test_doctest_calls_with_arithmetic_are_examples() -> None:
    signature = inspect.signature(rotate)
    found = examples_for(rotate, {"rotate"}, inspect.getdoc(rotate), signature, {"angle", "times"})
    assert [e["arguments"] for e in found] == [
        {"angle": math.pi / 4},
        {"angle": 8, "times": -12},
    ]


def test_usage_mining_folds_arithmetic_over_literals(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        textwrap.dedent(
            """\
            # demo

                >>> area(2*3)
                6
                >>> area(math.pi/4)
                0.5
                >>> area(width(2))
                1
            """
        )
    )
    usage = mine_usage(tmp_path, {"area"})
    literal = [c for c in usage.calls["area"] if c.args]
    assert sorted(c.args[0] for c in literal) == [math.pi / 4, 6]
    assert all(c.has_expected for c in literal)
