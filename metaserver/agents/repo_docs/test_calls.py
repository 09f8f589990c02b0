"""What a repository's own test suite shows of its API: the calls its tests make, the
literal arguments they build, and the values they assert.

A library whose README shows no code still proves its main API in its tests:
``assert mod.f(3) == 6``, ``assert_allclose(f(x), [0.5, 1.0])`` after ``x = [1, 2]``,
``assert f(0.1) == pytest.approx(0.2)``, and a result bound first (``r = f(3)`` then
``assert r == 6``; ``cA, cD = dwt(x)`` then ``assert_allclose(cA, [...])``: ``bound_results``).
Usage mining (``usage.py``) reads every test file
with ``inline_literals`` and ``asserted_calls``, so that such a call becomes an example with
the expected value, as a README's doctest does. Static only (``ast``, host side): nothing
is imported or run.
"""

from __future__ import annotations

import ast
import copy
import os
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import NamedTuple

from metaserver.agents.repo_docs.result_reads import peel
from metaserver.agents.repo_docs.test_text import text_value
from metaserver.contracts import ResultPlace, ResultRead
from metaserver.probe.fold import literal_value

__all__ = [
    "ARRAY_BUILDERS",
    "CLOSE_ASSERTIONS",
    "DECIMAL_ASSERTIONS",
    "TOLERANCE_PLACES",
    "TRUTH_ASSERTIONS",
    "Bound",
    "asserted_pairs",
    "bound_results",
    "function_name",
    "inline_literals",
    "is_test_file",
    "record_fields",
    "tolerance_ok",
]

_TEST_DIRS = {"test", "tests", "testing"}
ARRAY_BUILDERS = {"array", "asarray"}
"""``np.array([1, 2])`` in a test is the list a JSON tool takes (its codec makes the array)."""
_ARRAY_MODULES = {"np", "numpy"}
# Closeness assertions: (first, second) are the call and the value, either way round.
CLOSE_ASSERTIONS = {
    "assert_allclose",
    "assert_almost_equal",
    "assert_array_almost_equal",
    "assert_array_equal",
    "assert_equal",
    "assertAlmostEqual",
    "assertAlmostEquals",
    "assertEqual",
    "assertEquals",
    "assertListEqual",
    "assertTupleEqual",
}
# Tolerances looser than our comparison's are not the value the tool must return: such an
# assertion proves nothing we can check, so it gives no expected value.
_TIGHT = 1e-6
_MIN_DECIMALS = 6
DECIMAL_ASSERTIONS = {
    "assert_almost_equal",
    "assert_array_almost_equal",
    "assertAlmostEqual",
    "assertAlmostEquals",
}
"""Their third position is the decimals (numpy) or places (unittest) to compare."""
TOLERANCE_PLACES = {"assert_allclose": 2, "approx": 1}
"""Where their positional tolerances (relative, then absolute) begin."""


def is_test_file(relative: PurePath) -> bool:
    """Whether a repository path is part of its test suite: under a test folder, or named
    ``test_*.py`` / ``*_test.py`` / ``*_tests.py``, a module ``tests.py`` or ``test.py``
    inside the package (``sgp4/tests.py``), or a doctest file."""
    folders = {part.lower() for part in relative.parts[:-1]}
    name = relative.name
    return (
        bool(folders & _TEST_DIRS)
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name in ("test.py", "tests.py")
        or relative.suffix == ".doctest"
    )


_SKIPPED_DIRS = {"node_modules", "site-packages", "build", "dist", "__pycache__"}


def suite_files(root: Path) -> Iterator[Path]:
    """The suite's Python files under ``root`` (``is_test_file``), in a stable order."""
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if name.endswith(".py") and is_test_file(path.relative_to(root)):
                yield path


def asserted_pairs(tree: ast.AST) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(one side, other side) of each equality a test asserts: ``assert a == b``,
    ``assert a == pytest.approx(b)`` (``b`` unwrapped), ``self.assertEqual(a, b)``,
    ``assert_allclose(a, b)`` and their kin with a tolerance no looser than ours, and a
    comparison a truth assertion is given (``assert_(a == b)``, ``self.assertTrue(a == b)``)."""
    for node in ast.walk(tree):
        test = _tested(node)
        if test is not None:
            if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
                left, right = _approximated(test.left), _approximated(test.comparators[0])
                if left is not None and right is not None:
                    yield left, right
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            name = function_name(node.func)
            if name in CLOSE_ASSERTIONS and tolerance_ok(node):
                yield node.args[0], node.args[1]


TRUTH_ASSERTIONS = {"assert_", "assertTrue", "assert_true"}
"""Assertions that their one argument is true: given a comparison, it is asserted."""


def _tested(node: ast.AST) -> ast.Compare | None:
    """The comparison an ``assert`` statement, or a truth assertion's call, asserts."""
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
        return node.test
    if (
        isinstance(node, ast.Call)
        and function_name(node.func) in TRUTH_ASSERTIONS
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Compare)
    ):
        return node.args[0]
    return None


def tolerance_ok(call: ast.Call) -> bool:
    """Whether a closeness assertion's tolerance (``rtol``/``atol``, ``rel``/``abs``,
    ``delta``, ``decimal``/``places``, by keyword or by position) is no looser than the
    comparison validation makes; an unreadable one is not."""
    name = function_name(call.func) or ""
    decimals = [k.value for k in call.keywords if k.arg in ("decimal", "places")]
    if name in DECIMAL_ASSERTIONS:
        decimals += call.args[2:3]
    if any(not _at_least(value, _MIN_DECIMALS) for value in decimals):
        return False
    start = TOLERANCE_PLACES.get(name)
    tolerances = list(call.args[start : start + 2]) if start is not None else []
    tolerances += [k.value for k in call.keywords if k.arg in ("rtol", "atol", "rel", "abs")]
    tolerances += [k.value for k in call.keywords if k.arg == "delta"]
    for value in tolerances:
        try:
            number = literal_value(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        if number is not None and (not isinstance(number, int | float) or abs(number) > _TIGHT):
            return False
    return True


def _at_least(node: ast.expr, least: int) -> bool:
    try:
        value = literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(value, int) and value >= least


def _approximated(node: ast.expr) -> ast.expr | None:
    """The value inside ``pytest.approx(v)`` / ``approx(v)``, or the node itself; None for
    an ``approx`` looser than our comparison."""
    if isinstance(node, ast.Call) and function_name(node.func) == "approx":
        if len(node.args) != 1 or not tolerance_ok(node):
            return None
        return node.args[0]
    return node


def function_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def inline_literals(tree: ast.Module) -> ast.Module:
    """``tree``, changed in place (a copy of a large test module costs more than its parse),
    so that a name that its scope (a function, else the module) binds
    once, to a literal, is that literal where it is passed to a call or compared:
    ``x = [1, 2]`` then ``assert f(x) == 3`` reads as ``assert f([1, 2]) == 3``.
    ``np.array(L)`` reads as ``L``. A name bound twice, by a loop, a parameter (a
    parametrised test) or anything but a literal is left as it is, and so is one whose
    object the code may change (``x.append(3)``, ``x[0] = 2``)."""
    _inline_scope(tree, {})
    return tree


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _scope_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a scope, its nested scopes left out (they are scopes of their own)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _inline_scope(scope: ast.AST, outer: dict[str, ast.expr]) -> None:
    nodes = list(_scope_nodes(scope))
    stores: dict[str, int] = {}
    touched: set[str] = set()  # ``x.append(3)``: a method may change x, unless x is text
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):
            stores[node.arg] = stores.get(node.arg, 0) + 2  # a parameter: never a literal
        elif isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
            stores[node.name] = stores.get(node.name, 0) + 2
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.value, ast.Name):
            # ``x.append(3)``, ``x[0] = 2``: the object may change after its binding
            if not isinstance(node.ctx, ast.Load):
                stores[node.value.id] = stores.get(node.value.id, 0) + 2
            elif isinstance(node, ast.Attribute):
                touched.add(node.value.id)
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        for argument in ast.walk(scope.args):
            if isinstance(argument, ast.arg):
                stores[argument.arg] = stores.get(argument.arg, 0) + 2

    def kept(name: str, value: ast.expr) -> bool:
        return name not in touched or _immutable(value)

    bound = {name: v for name, v in outer.items() if name not in stores and kept(name, v)}
    assignments = [n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1]
    for _ in assignments:  # ``y = x`` read before ``x = [1]``: again until nothing more binds
        before = len(bound)
        for node in assignments:
            for name, value in _literal_bindings(node.targets[0], node.value, bound):
                if stores.get(name) == 1 and name not in bound and kept(name, value):
                    bound[name] = value
        if len(bound) == before:
            break
    for node in nodes:
        if isinstance(node, ast.Call):
            node.args = [_substituted(a, bound) for a in node.args]
            for keyword in node.keywords:
                keyword.value = _substituted(keyword.value, bound)
        elif isinstance(node, ast.Compare):
            node.left = _substituted(node.left, bound)
            node.comparators = [_substituted(c, bound) for c in node.comparators]
    for node in nodes:
        if isinstance(node, _SCOPES):
            _inline_scope(node, bound)


def _immutable(value: ast.expr) -> bool:
    """A literal no method changes: a string, a number, a tuple of such."""
    if isinstance(value, ast.Tuple):
        return all(_immutable(e) for e in value.elts)
    return isinstance(value, ast.Constant)


def _literal_bindings(
    target: ast.expr, value: ast.expr, bound: dict[str, ast.expr]
) -> Iterator[tuple[str, ast.expr]]:
    """The names an assignment binds to literals: ``x = [1, 2]``, and each name of ``a, b
    = [1, 2], [3]`` (a literal tuple or list of as many items, or a name bound to one);
    text computed from literals too (``bad = LINE1[:68] + '7'``, ``l0, l1, l2 =
    TLE.splitlines()``: test_text.py)."""
    text = text_value(value, bound)
    if isinstance(target, ast.Name):
        literal = _as_literal(value, bound)
        if literal is None and isinstance(text, str):
            literal = ast.Constant(text)
        if literal is not None:
            yield target.id, literal
    elif isinstance(text, list) and isinstance(target, ast.Tuple | ast.List):
        if len(text) == len(target.elts):
            for element, line in zip(target.elts, text, strict=True):
                if isinstance(element, ast.Name):
                    yield element.id, ast.Constant(line)
    elif isinstance(target, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        items = _substituted(value, bound)
        if isinstance(items, ast.Tuple | ast.List) and len(items.elts) == len(target.elts):
            for name, item in zip(target.elts, items.elts, strict=True):
                literal = _as_literal(item, bound)
                if isinstance(name, ast.Name) and literal is not None:
                    yield name.id, literal


def _substituted(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    """``node`` with the names ``bound`` holds replaced by their literals, inside a list,
    tuple, set or dict display too (``f([x, 1])``), and ``np.array(L)`` read as ``L``."""
    if isinstance(node, ast.Name) and node.id in bound:
        return copy.deepcopy(bound[node.id])
    if isinstance(node, ast.Subscript | ast.BinOp | ast.Call):
        text = text_value(node, bound)  # ``fix_checksum(LINE1[:68] + '7')``
        if isinstance(text, str):
            return ast.Constant(text)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        node.elts = [_substituted(e, bound) for e in node.elts]
    elif isinstance(node, ast.Dict):
        node.values = [_substituted(v, bound) for v in node.values]
    inner = _array_of(node)
    return node if inner is None else _substituted(inner, bound)


def _array_of(node: ast.expr) -> ast.expr | None:
    """``L`` for ``np.array(L)`` / ``numpy.asarray(L)`` with no other argument."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ARRAY_BUILDERS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in _ARRAY_MODULES
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0]
    return None


def _as_literal(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr | None:
    """``node`` (with the names already bound inlined) when it is a literal or a record
    (``record_fields``), else None."""
    node = _substituted(node, bound)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        node.elts = [_substituted(e, bound) for e in node.elts]
    try:
        literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return node if record_fields(node) is not None else None
    return node


def record_fields(node: ast.expr) -> dict[str, object] | None:
    """The fields of a record a test builds to compare a result with, written as its
    class's call with literal keywords only (``expect = SpaceGroupType(number=156,
    bns_number="156.49")``, then ``assert actual == expect``): a dataclass or named tuple
    compares field by field, as its JSON object does. None for anything else (a call with
    positions, a lower-case function's call, a value that is no literal)."""
    if not isinstance(node, ast.Call) or node.args or not node.keywords:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if not name[:1].isupper():
        return None
    fields: dict[str, object] = {}
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg in fields:
            return None
        try:
            fields[keyword.arg] = literal_value(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return fields


Place = int | tuple[int, ...]
"""Where an unpacked name's item sits in a result: its index when one flat line unpacked
the result, else the index at each level (``cA, (cH, cV, cD) = coeffs``: ``cV`` is
``(1, 1)``, ``cA`` is ``(0,)``), so that the places of one call compare with each other."""


class Bound(NamedTuple):
    """The call whose result a name holds where it is read; ``part``: the place of the
    name's item when a line unpacked the result into ``size`` names (0: a nested unpacking,
    or one of an item, which no assertion of every name makes whole); ``reads``: what the
    line read of the result before binding it (``aov = anova(...).round(3)``)."""

    call: ast.Call
    part: Place | None = None
    size: int = 1
    reads: tuple[ResultRead, ...] = ()


def result_place(part: Place | None) -> ResultPlace | None:
    """A place as the contracts write it: an index, or a list of one per level."""
    if isinstance(part, tuple):
        return part[0] if len(part) == 1 else list(part)
    return part


_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.Match)


def bound_results(tree: ast.AST) -> dict[int, Bound]:
    """For each read of a name (by the ``id`` of its ``ast.Name``) that holds a call's
    result there: ``r = f(3)`` then ``assert r == 6`` reads ``r`` as ``f(3)``'s result.

    Followed statement by statement in each scope (the module, each function): a binding
    holds until the name is bound again or its object may change (``r.sort()``, ``r[0] =
    1``, ``r.x = 1``, ``r += 1``); a ``with`` body runs in line; inside a branch or a loop
    only the names it never changes are read, and what it binds is forgotten after it.
    """
    found: dict[int, Bound] = {}
    scopes = [tree] + [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    for scope in scopes:
        body = getattr(scope, "body", None)
        if isinstance(body, list):
            _follow(body, {}, found)
    return found


def _follow(body: list[ast.stmt], held: dict[str, Bound], found: dict[int, Bound]) -> None:
    for statement in body:
        if isinstance(statement, _SCOPES):
            held.pop(statement.name, None)  # its own body is a scope of its own
            continue
        if isinstance(statement, ast.With | ast.AsyncWith):
            for item in statement.items:
                _read(item.context_expr, held, found, set())
            _forget(
                _changed([ast.Expr(i.optional_vars) for i in statement.items if i.optional_vars]),
                held,
            )
            _follow(statement.body, held, found)
            continue
        changed = _changed([statement])
        if isinstance(statement, _BLOCKS):
            _read(statement, held, found, changed)
            _forget(changed, held)
            continue
        _read(statement, held, found, set())
        _forget(changed, held)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            _bind(statement.targets[0], statement.value, held)


def _bind(target: ast.expr, value: ast.expr, held: dict[str, Bound]) -> None:
    value, reads = peel(value)
    if isinstance(value, ast.Name):
        _bind_item(target, value, reads, held)
        return
    if not isinstance(value, ast.Call):
        return
    if isinstance(target, ast.Name):
        held[target.id] = Bound(value, reads=tuple(reads))
    elif isinstance(target, ast.Tuple | ast.List) and not reads:
        _unpack(target, value, None, held)


def _bind_item(
    target: ast.expr, source: ast.Name, reads: list[ResultRead], held: dict[str, Bound]
) -> None:
    """``cA, (cH, cV, cD) = coeffs`` or ``cA2, cD2 = res[0]``, where ``coeffs`` and ``res``
    hold a call's result: each name holds its item. A name bound to another name is not
    followed (the two share one object, and a change made through one is not seen)."""
    bound = held.get(source.id)
    if bound is None or bound.reads:
        return
    base = _place_tuple(bound.part)
    for read in reads:
        key = read.keys[0] if read.op == "index" and len(read.keys) == 1 else None
        if read.via is not None or not isinstance(key, int) or isinstance(key, bool):
            return  # only a plain literal index of a sequence is one of its items
        base = (*(base or ()), key)
    if isinstance(target, ast.Name) and base is not None:
        held[target.id] = Bound(bound.call, base, 0)
    elif isinstance(target, ast.Tuple | ast.List):
        _unpack(target, bound.call, base, held)


def _place_tuple(part: Place | None) -> tuple[int, ...] | None:
    return (part,) if isinstance(part, int) else part


def _unpack(
    target: ast.Tuple | ast.List,
    call: ast.Call,
    base: tuple[int, ...] | None,
    held: dict[str, Bound],
) -> None:
    """Hold each name an unpacking binds at its item's place: an index when one flat line
    unpacks the call's result (``_, _, stats = f(...)``: ``_`` is not kept), else a tuple."""
    places = _places(target, base or ())
    if places is None:
        return
    kept = [name for name, _ in places if name != "_"]
    if len(set(kept)) != len(kept):
        return
    flat = base is None and all(len(place) == 1 for _, place in places)
    for name, place in places:
        if name != "_":
            held[name] = Bound(call, place[0], len(places)) if flat else Bound(call, place, 0)


def _places(
    target: ast.Tuple | ast.List, prefix: tuple[int, ...]
) -> list[tuple[str, tuple[int, ...]]] | None:
    """Each name of a (nested) unpacking with its place; None for a starred item."""
    found: list[tuple[str, tuple[int, ...]]] = []
    for index, element in enumerate(target.elts):
        place = (*prefix, index)
        if isinstance(element, ast.Name):
            found.append((element.id, place))
        elif isinstance(element, ast.Tuple | ast.List):
            inner = _places(element, place)
            if inner is None:
                return None
            found += inner
        else:
            return None
    return found


def _read(node: ast.AST, held: dict[str, Bound], found: dict[int, Bound], skip: set[str]) -> None:
    for child in _scope_nodes(node) if not isinstance(node, ast.expr) else ast.walk(node):
        if (
            isinstance(child, ast.Name)
            and isinstance(child.ctx, ast.Load)
            and child.id in held
            and child.id not in skip
        ):
            found[id(child)] = held[child.id]


def _changed(statements: list[ast.stmt]) -> set[str]:
    """The names these statements bind, or whose objects they may change."""
    names: set[str] = set()
    for statement in statements:
        for node in [statement, *_scope_nodes(statement)]:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, _SCOPES) and node is not statement:
                if not isinstance(node, ast.Lambda):
                    names.add(node.name)
            elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(
                node.value, ast.Name
            ):
                if not isinstance(node.ctx, ast.Load):
                    names.add(node.value.id)
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                    names.add(node.func.value.id)  # ``r.sort()``: r may change
                if function_name(node.func) not in _READERS:  # ``run(model)`` may change it
                    given = [*node.args, *(k.value for k in node.keywords)]
                    names.update(a.id for a in given if isinstance(a, ast.Name))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


_READERS = (
    CLOSE_ASSERTIONS
    | {"approx", "isclose", "allclose", "array_equal", "assert_", "assertTrue", "assertIn"}
    | {"len", "print", "str", "repr", "isinstance", "type", "list", "tuple", "sorted", "set"}
    | {"float", "int", "bool", "abs", "round", "min", "max", "sum", "all", "any", "hasattr"}
)
"""Calls that only read the names they are given: passing a result to one of them keeps
its binding, where any other call may change the object it is given."""


def _forget(names: set[str], held: dict[str, Bound]) -> None:
    for name in names:
        held.pop(name, None)
