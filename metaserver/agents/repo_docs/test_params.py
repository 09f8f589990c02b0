"""What pytest hands a test as its arguments, read as the test's own first lines.

A test suite states its cases as data more often than as lines: ``@pytest.mark.parametrize(
"x, expected", [(1, 2), (3, 6)])`` over ``assert f(x) == expected``, or a fixture that
returns the data a module's tests share (``def pair(): return [100, 200], [101, 201]``,
then ``def test_h(pair): a, b = pair``). ``bind_parameters`` rewrites such a test so that
each of those arguments is an assignment of its literal at the top of the body, and the
static readers (``test_calls.inline_literals``, ``bound_results``) then read
``assert f(1) == 2`` as they read a test written so. A parametrised test becomes one copy
per literal row (at most ``MAX_ROWS``), since every row is a case the suite asserts; the
calls of the copies after the first are *echoes*, which count no second time as uses.
Static only (``ast``, host side): nothing is imported or run.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

from metaserver.probe.fold import literal_value

__all__ = ["MAX_ROWS", "bind_parameters"]

MAX_ROWS = 3
"""Copies of a parametrised test read: enough cases to prove a tool, not a suite's table."""

_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_SKIPPING_MARKS = {"xfail", "skip", "skipif"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def bind_parameters(tree: ast.Module, wanted: set[str] | None = None) -> set[int]:
    """Change ``tree`` in place: each test whose parameters are parametrised by literal rows
    or named after a module fixture returning a literal takes them as assignments of those
    literals, one copy of the test per row. Returns the ``id`` of every call node in the
    copies after the first (echoes: the same calls again, to be read but not counted).
    With ``wanted`` (names), a test that names none of them is bound to its first row
    only: its other rows show nothing of interest, and copying a large suite's tests costs."""
    constants = _module_constants(tree)
    fixtures = _literal_fixtures(tree)
    echoes: set[int] = set()
    for body in _bodies(tree):
        expanded: list[ast.stmt] = []
        for statement in body:
            if not isinstance(statement, _FUNCTIONS) or statement.name in fixtures:
                expanded.append(statement)
                continue
            rows = MAX_ROWS if wanted is None or _names_any(statement, wanted) else 1
            copies = _bound_copies(statement, constants, fixtures, rows)
            expanded += copies
            for echo in copies[1:]:
                echoes.update(id(n) for n in ast.walk(echo) if isinstance(n, ast.Call))
        body[:] = expanded
    return echoes


def _bodies(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """The module's body and each of its classes' (tests are functions or methods)."""
    yield tree.body
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            yield node.body


def _module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once, to a list or tuple (``CASES = [(1, 2), (3, 6)]``)."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in tree.body:
        for target in _targets(node):
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    counts[name.id] = counts.get(name.id, 0) + 1
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            values[node.targets[0].id] = node.value
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    if isinstance(node, ast.For | ast.AsyncFor):
        return [node.target]
    return []


def _literal_fixtures(tree: ast.Module) -> dict[str, ast.expr]:
    """Module fixtures (``@pytest.fixture``, without ``params``) whose body returns one
    literal and does nothing else: the value each test naming them is given."""
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if not isinstance(node, _FUNCTIONS) or not any(_is_fixture(d) for d in node.decorator_list):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # a docstring
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            if _is_literal(body[0].value):
                found[node.name] = body[0].value
    return found


def _is_fixture(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call):
        if any(k.arg == "params" for k in decorator.keywords):
            return False  # one value per param: not one literal
        decorator = decorator.func
    return _dotted(decorator) in ("pytest.fixture", "fixture")


def _names_any(test: ast.AST, wanted: set[str]) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and node.id in wanted:
            return True
        if isinstance(node, ast.Attribute) and node.attr in wanted:
            return True
    return False


def _bound_copies(
    test: ast.FunctionDef | ast.AsyncFunctionDef,
    constants: dict[str, ast.expr],
    fixtures: dict[str, ast.expr],
    rows: int = MAX_ROWS,
) -> list[ast.stmt]:
    """``test`` as copies with its literal arguments bound in its body (``[test]`` when it
    has none): a copy per combination of its parametrize marks' rows, at most MAX_ROWS."""
    parameters = {a.arg for a in [*test.args.posonlyargs, *test.args.args, *test.args.kwonlyargs]}
    combinations: list[dict[str, ast.expr]] = [{}]
    kept: list[ast.expr] = []
    for decorator in test.decorator_list:
        table = _parametrize_rows(decorator, constants)
        if table is None:
            kept.append(decorator)
            continue
        combinations = [{**c, **row} for c in combinations for row in table][:rows]
        if not combinations:
            return [test]  # every row skipped: the test asserts nothing we can read
    given = {name: value for name, value in fixtures.items() if name in parameters}
    if combinations == [{}] and not given:
        return [test]
    echoes = [copy.deepcopy(test) for _ in combinations[1:]]  # before the first is bound
    for echo in echoes:
        echo.decorator_list = []
    test.decorator_list = kept
    copies: list[ast.stmt] = []
    for place, (copied, row) in enumerate(zip([test, *echoes], combinations, strict=True)):
        values = {**given, **row}
        bound = {n: v for n, v in values.items() if n in parameters and _is_literal(v)}
        if place:
            bound = {n: copy.deepcopy(v) for n, v in bound.items()}
        _bind(copied, bound)
        copies.append(copied)
    return copies


def _bind(test: ast.FunctionDef | ast.AsyncFunctionDef, bound: dict[str, ast.expr]) -> None:
    """Drop the bound parameters from ``test``'s signature and assign them first thing."""
    arguments = test.args
    arguments.args = [a for a in arguments.args if a.arg not in bound]
    arguments.posonlyargs = [a for a in arguments.posonlyargs if a.arg not in bound]
    keyword = [
        (a, d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if a.arg not in bound
    ]
    arguments.kwonlyargs = [a for a, _ in keyword]
    arguments.kw_defaults = [d for _, d in keyword]
    positional = len(arguments.posonlyargs) + len(arguments.args)
    arguments.defaults = (
        arguments.defaults[len(arguments.defaults) - positional :] if positional else []
    )
    lines = [
        ast.copy_location(
            ast.Assign([ast.Name(name, ast.Store())], value, lineno=test.lineno), test
        )
        for name, value in bound.items()
    ]
    test.body[:0] = lines


def _parametrize_rows(
    decorator: ast.expr, constants: dict[str, ast.expr]
) -> list[dict[str, ast.expr]] | None:
    """The rows of a ``parametrize`` mark as name -> value, rows a skip or xfail mark
    leaves out; None for any other decorator, or one whose rows are not written in the
    file (read from data, ``indirect``: then the test keeps its parameters)."""
    if not isinstance(decorator, ast.Call) or not _dotted(decorator.func).endswith("parametrize"):
        return None
    if len(decorator.args) < 2 or any(k.arg == "indirect" for k in decorator.keywords):
        return None
    names = _names(decorator.args[0])
    table = decorator.args[1]
    if isinstance(table, ast.Name):
        table = constants.get(table.id, table)
    table = _range_rows(table) or table
    if not names or not isinstance(table, ast.List | ast.Tuple):
        return None
    rows: list[dict[str, ast.expr]] = []
    for row in table.elts:
        values = _row_values(row, len(names))
        if values is not None:
            rows.append(dict(zip(names, values, strict=True)))
    return rows


def _range_rows(table: ast.expr) -> ast.List | None:
    """``range(1, 20, 2)`` with literal int bounds as the list of its first MAX_ROWS
    numbers (``parametrize("margin", range(1, 20, 2))``); None for anything else."""
    if not (
        isinstance(table, ast.Call)
        and isinstance(table.func, ast.Name)
        and table.func.id == "range"
        and 1 <= len(table.args) <= 3
        and not table.keywords
    ):
        return None
    try:
        bounds = [literal_value(a) for a in table.args]
    except _LITERAL_ERRORS:
        return None
    if not all(type(b) is int for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
        return None
    numbers = range(*bounds)[:MAX_ROWS]
    return ast.List([ast.Constant(n) for n in numbers], ast.Load())


def _names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        names = [n.strip() for n in node.value.split(",")]
    elif isinstance(node, ast.List | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        names = [str(e.value).strip() for e in node.elts if isinstance(e, ast.Constant)]
    else:
        return []
    return names if all(n.isidentifier() for n in names) else []


def _row_values(row: ast.expr, size: int) -> list[ast.expr] | None:
    """One row's values, in the names' order; None for a row pytest skips or expects to
    fail, or one not of the names' shape."""
    if isinstance(row, ast.Call) and _dotted(row.func).endswith("param"):
        marks = [k.value for k in row.keywords if k.arg == "marks"]
        if any(_skips(mark) for mark in marks):
            return None
        values = list(row.args)
    elif size == 1:
        values = [row]
    elif isinstance(row, ast.Tuple | ast.List):
        values = list(row.elts)
    else:
        return None
    if any(isinstance(v, ast.Starred) for v in values):
        return None
    return values if len(values) == size else None


def _skips(mark: ast.expr) -> bool:
    return any(
        isinstance(node, ast.Attribute) and node.attr in _SKIPPING_MARKS for node in ast.walk(mark)
    )


def _is_literal(node: ast.expr) -> bool:
    try:
        literal_value(node)
    except _LITERAL_ERRORS:
        return False
    return True


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""
