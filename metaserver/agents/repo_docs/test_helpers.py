"""A test suite's own assertion helpers, written out where its tests call them.

Suites often assert through a helper of their own: ``assert_datetime(d, 2015, 2, 6)``,
defined once in ``conftest.py`` as ``assert year == d.year``, ``assert month == d.month``...
Each such call hides the values the test asserts from the miner (``usage.py``) and from the
test sessions (``test_sessions.py``), which read ``assert`` statements. ``inline_helpers``
writes the call out as the helper's assertions, the call's arguments in place of its
parameters: an argument that is an expression is bound to a name first (``d__1 =
pendulum.datetime(2015, 2, 5)``), so that it is called once, as the test calls it. A helper
is a module-level function of the suite whose body is only assertions (``assert``
statements, calls of ``assert...`` functions) and ``if PARAM is not None:`` blocks of
them (the optional checks, kept where the call passes that parameter). Static only
(``ast``): nothing is imported or run.
"""

from __future__ import annotations

import ast
import copy
import itertools
from pathlib import Path

from metaserver.agents.repo_docs.test_calls import function_name, suite_files

__all__ = ["Helpers", "assertion_helpers", "inline_helpers"]

MAX_FILES = 400
MAX_FILE_BYTES = 400_000
_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)

Helpers = dict[str, ast.FunctionDef]


def assertion_helpers(root: Path) -> Helpers:
    """The suite's assertion helpers by name; a name two files define differently is none."""
    found: Helpers = {}
    clashing: set[str] = set()
    for path in itertools.islice(suite_files(root), MAX_FILES):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, *_ERRORS):
            continue
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or not _is_helper(node):
                continue
            known = found.get(node.name)
            if known is not None and ast.dump(known) != ast.dump(node):
                clashing.add(node.name)
            found[node.name] = node
    return {name: helper for name, helper in found.items() if name not in clashing}


def inline_helpers(tree: ast.Module, helpers: Helpers) -> ast.Module:
    """``tree`` with each statement that calls a helper written out as its assertions."""
    if not helpers:
        return tree
    rewritten = _Inlined(helpers).visit(tree)
    assert isinstance(rewritten, ast.Module)
    return ast.fix_missing_locations(rewritten)


def _is_helper(node: ast.FunctionDef) -> bool:
    arguments = node.args
    if (
        node.name.startswith("test")
        or node.decorator_list
        or arguments.vararg
        or arguments.kwarg
        or not (arguments.posonlyargs or arguments.args)
    ):
        return False
    parameters = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    body = _body(node)
    return bool(body) and _asserts_only(body, parameters) and _asserts_something(body)


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    first = node.body[0] if node.body else None
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    return node.body[1:] if docstring else node.body


def _asserts_only(body: list[ast.stmt], parameters: set[str]) -> bool:
    for statement in body:
        if isinstance(statement, ast.If):
            if _optional(statement.test, parameters) is None:
                return False
            if not _asserts_only([*statement.body, *statement.orelse], parameters):
                return False
        elif not isinstance(statement, ast.Assert | ast.Pass) and not _asserting(statement):
            return False
    return True


def _asserting(statement: ast.stmt) -> bool:
    """An assertion written as a call: ``assert_allclose(x, ref)``, ``np.testing.assert_...``."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    name = function_name(statement.value.func) or ""
    return name.startswith("assert")


def _asserts_something(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(node, ast.Assert) or (isinstance(node, ast.stmt) and _asserting(node))
        for s in body
        for node in ast.walk(s)
    )


def _optional(test: ast.expr, parameters: set[str]) -> tuple[str, bool] | None:
    """(parameter, whether the block runs when it is given) for ``P is not None`` (True)
    and ``P is None`` (False); None for any other condition."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id in parameters
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        if isinstance(test.ops[0], ast.IsNot):
            return test.left.id, True
        if isinstance(test.ops[0], ast.Is):
            return test.left.id, False
    return None


class _Inlined(ast.NodeTransformer):
    def __init__(self, helpers: Helpers) -> None:
        self.helpers = helpers
        self.counter = itertools.count(1)

    def visit_Expr(self, node: ast.Expr) -> ast.stmt | list[ast.stmt]:
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            return node
        helper = self.helpers.get(call.func.id)
        if helper is None:
            return node
        bound = _bound(helper, call)
        if bound is None:
            return node
        first: list[ast.stmt] = []
        binding: dict[str, ast.expr] = {}
        for name, value in bound.items():
            if isinstance(value, ast.Name) or _literal(value):
                binding[name] = value  # written in place: no call to make only once
                continue
            held = f"{name}__{next(self.counter)}"
            first.append(ast.Assign([ast.Name(held, ast.Store())], value, lineno=node.lineno))
            binding[name] = ast.Name(held, ast.Load())
        written = _written(_body(helper), binding)
        return [ast.copy_location(s, node) for s in [*first, *written]]


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _bound(helper: ast.FunctionDef, call: ast.Call) -> dict[str, ast.expr] | None:
    """The helper's parameters bound to the call's arguments, else to their defaults."""
    arguments = helper.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if len(call.args) > len(positional) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    bound: dict[str, ast.expr] = {p.arg: a for p, a in zip(positional, call.args, strict=False)}
    names = {p.arg for p in [*positional, *arguments.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in names or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    defaults = dict(zip([p.arg for p in positional[::-1]], arguments.defaults[::-1], strict=False))
    defaults |= {
        p.arg: d for p, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
    }
    for name in names - bound.keys():
        if name not in defaults:
            return None
        bound[name] = defaults[name]
    return {name: copy.deepcopy(value) for name, value in bound.items()}


def _written(body: list[ast.stmt], binding: dict[str, ast.expr]) -> list[ast.stmt]:
    written: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If):
            optional = _optional(statement.test, set(binding))
            assert optional is not None  # _is_helper checked every condition
            name, when_given = optional
            value = binding[name]
            given = not (isinstance(value, ast.Constant) and value.value is None)
            branch = statement.body if given == when_given else statement.orelse
            written += _written(branch, binding)
        elif isinstance(statement, ast.Assert) or _asserting(statement):
            written.append(_Substituted(binding).visit(copy.deepcopy(statement)))
    return written


class _Substituted(ast.NodeTransformer):
    def __init__(self, binding: dict[str, ast.expr]) -> None:
        self.binding = binding

    def visit_Name(self, node: ast.Name) -> ast.expr:
        value = self.binding.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(copy.deepcopy(value), node)
