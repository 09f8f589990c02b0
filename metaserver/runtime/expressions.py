"""Functions as arguments: an expression in named variables, as a callable (codec ``expression``).

A parameter that takes a function (an integrand, an objective, a statistic) accepts text
such as ``"exp(-x**2)"`` in ``x`` (docs/ARCHITECTURE.md, decision "Functions as arguments").
The text is parsed into an expression tree, checked against what is allowed, and walked by
this module's own evaluator: the raw text is never passed to ``eval`` or ``compile``.

Allowed: numbers, strings, ``True``/``False``/``None``, arithmetic, comparisons, ``and``/
``or``/``not``, ``a if c else b``, tuples and lists of those, subscripts (``x[0]``), the
named variables, and calls of the public functions (and constants) of the library, of
numpy when the library is numpy-based, of ``math``, and of a few pure builtins (``abs``,
``min``...). Names are looked up in that order, bare (``exp``) or through the module's name
(``math.exp``, ``np.exp``, ``pkg.special.gamma``). Refused: imports, lambdas,
comprehensions, assignment expressions, attribute access on anything but those modules,
names that start with an underscore (dunders with them), starred arguments, and integer
results past ``MAX_INT_BITS`` bits (``9**9**9``) or sequences past ``MAX_ITEMS`` items.

Standard library only: this module is copied into generated servers.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import operator
import types
from collections.abc import Callable
from typing import Any

__all__ = [
    "MAX_CHARS",
    "MAX_INT_BITS",
    "MAX_ITEMS",
    "MAX_NODES",
    "Expression",
    "ExpressionError",
    "decode_expression",
    "expression_target",
    "parse_expression",
]

MAX_CHARS = 2000
MAX_NODES = 500
MAX_INT_BITS = 4096
MAX_ITEMS = 100_000

ALIASES = {"np": "numpy"}
"""Module names as they are conventionally written in expressions."""

BUILTINS: dict[str, Any] = {
    "abs": abs,
    "min": min,
    "max": max,
    "round": round,
    "sum": sum,
    "len": len,
    "int": int,
    "float": float,
    "complex": complex,
    "bool": bool,
}
"""Builtins that compute from their arguments and reach nothing else."""


class ExpressionError(ValueError):
    """Text that is not an allowed expression, or an evaluation past the bounds."""


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_CONSTANTS = (int, float, complex, str, bool, type(None))

Evaluator = Callable[[dict[str, Any]], Any]


def expression_target(variables: list[str], modules: list[str]) -> str:
    """The codec target the probe writes: ``"x,y@pkg,numpy"``."""
    return f"{','.join(variables)}@{','.join(modules)}"


def decode_expression(value: Any, target: str) -> Any:
    """Codec ``expression:VARS@MODULES``: text in the variables, or ``{"expression": text,
    "variables": [names]}`` naming other variables."""
    names, _, modules = target.partition("@")
    variables = [n for n in names.split(",") if n] or ["x"]
    if isinstance(value, dict) and isinstance(value.get("expression"), str):
        given = value.get("variables", variables)
        if not isinstance(given, list) or not all(isinstance(n, str) for n in given):
            raise ExpressionError("variables is a list of names")
        variables, value = given, value["expression"]
    if not isinstance(value, str):
        raise ExpressionError(f"a function is written as an expression in {', '.join(variables)}")
    expression = parse_expression(value, variables, [m for m in modules.split(",") if m])
    if _one_name(value, variables):
        # The name of a function alone ("sin", "np.cos"): that function itself.
        named = expression.evaluate({})
        if callable(named):
            return named
    return expression


def _one_name(text: str, variables: list[str]) -> bool:
    body = ast.parse(text.strip(), mode="eval").body
    return isinstance(body, ast.Attribute) or (
        isinstance(body, ast.Name) and body.id not in variables
    )


def parse_expression(text: str, variables: list[str], modules: list[str]) -> Expression:
    """The callable ``text`` writes in ``variables``, names resolved in ``modules`` (the
    library's first), numpy's and ``math``'s; raises ExpressionError for anything refused."""
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"an expression is at most {MAX_CHARS} characters")
    for name in variables:
        if not name.isidentifier() or name.startswith("_"):
            raise ExpressionError(f"{name!r} cannot name a variable")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"not an expression: {exc}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ExpressionError(f"an expression has at most {MAX_NODES} parts")
    namespace = _Namespace(variables, modules)
    try:
        evaluate = _Compiler(namespace).compile(tree.body)
    except RecursionError:
        raise ExpressionError("the expression is nested too deeply") from None
    return Expression(text, variables, evaluate)


class Expression:
    """A function of ``variables`` whose body is a checked expression tree.

    ``inspect.signature`` gives one positional parameter per variable (a library that counts
    a model function's parameters, as curve fitting does, sees the names); extra positional
    arguments (``f(x, *args)`` called with ``args``) are accepted and unused."""

    def __init__(self, text: str, variables: list[str], evaluate: Evaluator) -> None:
        self.text = text
        self.variables = list(variables)
        self.evaluate = evaluate
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        self.__signature__ = inspect.Signature(
            [inspect.Parameter(name, kind) for name in variables]
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = dict(zip(self.variables, args, strict=False))
        for name, value in kwargs.items():
            if name in self.variables:
                bound[name] = value
        missing = [n for n in self.variables if n not in bound]
        if missing:
            raise TypeError(f"{self!r} needs a value for {', '.join(missing)}")
        return self.evaluate(bound)

    def __repr__(self) -> str:
        return f"<expression {self.text!r} in {', '.join(self.variables)}>"


class _Namespace:
    """What names mean: the variables, then the modules' public values, then BUILTINS."""

    def __init__(self, variables: list[str], modules: list[str]) -> None:
        self.variables = set(variables)
        wanted = [ALIASES.get(m, m) for m in modules] + ["math"]
        self.modules: dict[str, types.ModuleType] = {}
        for name in dict.fromkeys(wanted):
            try:
                self.modules[name] = importlib.import_module(name)
            except ImportError:
                continue  # a module the environment lacks names nothing
        self.roots = {name.partition(".")[0] for name in self.modules}

    def named(self, node: ast.expr) -> Any:
        """The allowed value a bare name or a dotted module path names; refused otherwise."""
        if isinstance(node, ast.Name):
            return self.bare(node.id)
        if not isinstance(node, ast.Attribute):
            raise ExpressionError("only a module's functions are reached through a dot")
        holder = self.module_path(node.value)
        return self.allowed(_public(holder, node.attr), node.attr)

    def bare(self, name: str) -> Any:
        if name.startswith("_"):
            raise ExpressionError(f"{name!r}: names starting with '_' are refused")
        for module in self.modules.values():
            if name in vars(module) and not isinstance(vars(module)[name], types.ModuleType):
                return self.allowed(vars(module)[name], name)
        if name in BUILTINS:
            return BUILTINS[name]
        raise ExpressionError(f"unknown name {name!r}")

    def module_path(self, node: ast.expr) -> types.ModuleType:
        """The allowed module a name or dotted path writes (``np``, ``pkg.special``)."""
        if isinstance(node, ast.Name):
            name = ALIASES.get(node.id, node.id)
            if name in self.modules:
                return self.modules[name]
            raise ExpressionError(f"{node.id!r} is not a module an expression may use")
        if isinstance(node, ast.Attribute):
            value = _public(self.module_path(node.value), node.attr)
            if isinstance(value, types.ModuleType) and self.owned(value.__name__):
                return value
        raise ExpressionError("attribute access reaches only the allowed modules' functions")

    def owned(self, module_name: object) -> bool:
        return isinstance(module_name, str) and module_name.partition(".")[0] in self.roots

    def allowed(self, value: Any, name: str) -> Any:
        """``value`` when it is a number or a function or constant of an allowed module."""
        if isinstance(value, _CONSTANTS):
            return value
        if isinstance(value, types.ModuleType):
            raise ExpressionError(f"{name!r} is a module, not a value")
        home = getattr(value, "__module__", None) if callable(value) else None
        if not isinstance(home, str):
            home = type(value).__module__
        if self.owned(home):
            return value
        raise ExpressionError(f"{name!r} is not a function of the allowed modules")


def _public(module: types.ModuleType, name: str) -> Any:
    if name.startswith("_"):
        raise ExpressionError(f"{name!r}: names starting with '_' are refused")
    try:
        return getattr(module, name)
    except AttributeError:
        raise ExpressionError(f"{module.__name__} has no {name!r}") from None


class _Compiler:
    """Expression nodes -> evaluators (functions of the variables' values)."""

    def __init__(self, namespace: _Namespace) -> None:
        self.namespace = namespace

    def compile(self, node: ast.expr) -> Evaluator:
        method = getattr(self, "on_" + type(node).__name__, None)
        if method is None:
            raise ExpressionError(f"{_kind(node)} is not allowed in an expression")
        return method(node)  # type: ignore[no-any-return]

    def on_Constant(self, node: ast.Constant) -> Evaluator:
        value = node.value
        if not isinstance(value, _CONSTANTS):
            raise ExpressionError(f"the literal {value!r} is not allowed")
        return lambda _: value

    def on_Name(self, node: ast.Name) -> Evaluator:
        name = node.id
        if name in self.namespace.variables:
            return lambda bound: bound[name]
        value = self.namespace.named(node)
        return lambda _: value

    def on_Attribute(self, node: ast.Attribute) -> Evaluator:
        value = self.namespace.named(node)
        return lambda _: value

    def on_BinOp(self, node: ast.BinOp) -> Evaluator:
        function = _BINARY.get(type(node.op))
        if function is None:
            raise ExpressionError(f"the operator {type(node.op).__name__} is not allowed")
        left, right = self.compile(node.left), self.compile(node.right)
        op = type(node.op)
        return lambda bound: _bounded(op, function, left(bound), right(bound))

    def on_UnaryOp(self, node: ast.UnaryOp) -> Evaluator:
        function = _UNARY[type(node.op)]
        operand = self.compile(node.operand)
        return lambda bound: function(operand(bound))

    def on_BoolOp(self, node: ast.BoolOp) -> Evaluator:
        values = [self.compile(v) for v in node.values]
        is_and = isinstance(node.op, ast.And)

        def evaluate(bound: dict[str, Any]) -> Any:
            result: Any = None
            for value in values:
                result = value(bound)
                if bool(result) != is_and:
                    return result
            return result

        return evaluate

    def on_Compare(self, node: ast.Compare) -> Evaluator:
        first = self.compile(node.left)
        rest = [
            (_compare(op), self.compile(c))
            for op, c in zip(node.ops, node.comparators, strict=True)
        ]

        def evaluate(bound: dict[str, Any]) -> Any:
            left = first(bound)
            result: Any = True
            for function, comparator in rest:
                right = comparator(bound)
                result = function(left, right)
                if not _truth(result):
                    return result
                left = right
            return result

        return evaluate

    def on_IfExp(self, node: ast.IfExp) -> Evaluator:
        test, body, orelse = (
            self.compile(node.test),
            self.compile(node.body),
            self.compile(node.orelse),
        )
        return lambda bound: body(bound) if test(bound) else orelse(bound)

    def on_Tuple(self, node: ast.Tuple) -> Evaluator:
        items = [self.compile(e) for e in node.elts]
        return lambda bound: tuple(item(bound) for item in items)

    def on_List(self, node: ast.List) -> Evaluator:
        items = [self.compile(e) for e in node.elts]
        return lambda bound: [item(bound) for item in items]

    def on_Subscript(self, node: ast.Subscript) -> Evaluator:
        value, index = self.compile(node.value), self.compile(node.slice)
        return lambda bound: value(bound)[index(bound)]

    def on_Slice(self, node: ast.Slice) -> Evaluator:
        parts = [
            self.compile(p) if p is not None else None for p in (node.lower, node.upper, node.step)
        ]
        return lambda bound: slice(*(p(bound) if p is not None else None for p in parts))

    def on_Call(self, node: ast.Call) -> Evaluator:
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise ExpressionError("only a function named by its name is called")
        if isinstance(node.func, ast.Name) and node.func.id in self.namespace.variables:
            raise ExpressionError(f"the variable {node.func.id!r} is not a function")
        function = self.namespace.named(node.func)
        if not callable(function):
            raise ExpressionError(f"{ast.unparse(node.func)!r} is not a function")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise ExpressionError("starred arguments are not allowed")
        args = [self.compile(a) for a in node.args]
        keywords = [(k.arg, self.compile(k.value)) for k in node.keywords if k.arg]
        for name, _ in keywords:
            if name.startswith("_"):
                raise ExpressionError(f"{name!r}: names starting with '_' are refused")
        return lambda bound: function(
            *(a(bound) for a in args), **{k: v(bound) for k, v in keywords}
        )


def _compare(op: ast.cmpop) -> Callable[[Any, Any], Any]:
    function = _COMPARE.get(type(op))
    if function is None:
        raise ExpressionError(f"the comparison {type(op).__name__} is not allowed")
    return function


def _truth(value: Any) -> bool:
    """A comparison's truth; an array's elementwise result continues the chain."""
    try:
        return bool(value)
    except (TypeError, ValueError):
        return True


def _kind(node: ast.AST) -> str:
    names = {
        "Lambda": "a lambda",
        "ListComp": "a comprehension",
        "SetComp": "a comprehension",
        "DictComp": "a comprehension",
        "GeneratorExp": "a comprehension",
        "NamedExpr": "an assignment",
        "Starred": "a starred value",
        "Await": "await",
        "Yield": "yield",
        "YieldFrom": "yield",
    }
    return names.get(type(node).__name__, type(node).__name__)


def _bounded(op: type[ast.operator], function: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """``function(a, b)``, refused where Python's integers or sequences would grow past the
    bounds (``9**9**9`` would run for hours and fill the memory)."""
    if op is ast.Pow and _integer(a) and _integer(b) and b > 0 and abs(a) > 1:
        if b * math.log2(abs(a)) > MAX_INT_BITS:
            raise ExpressionError(f"{a}**{b} is past {MAX_INT_BITS} bits")
    if op is ast.Mult:
        if _integer(a) and _integer(b) and a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise ExpressionError(f"a product is past {MAX_INT_BITS} bits")
        for seq, times in ((a, b), (b, a)):
            if isinstance(seq, (str, bytes, list, tuple)) and _integer(times):
                if len(seq) * times > MAX_ITEMS:
                    raise ExpressionError(f"a repeated sequence is past {MAX_ITEMS} items")
    return function(a, b)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
