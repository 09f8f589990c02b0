"""Probe helper (runs INSIDE the target environment; standard library only; also imported by
agents/repo_docs/usage.py on the host): arithmetic over numbers in a documented call, folded
to the number it is.

``f(2**10)``, ``g(1/3)``, ``h(-3*4)``, ``rotate(math.pi/4)``, ``np.pi/2``, ``math.sqrt(2)``
and ``radians(45)`` (``radians`` being ``math.radians``) are literal arguments: the call is
an example like ``f(1024)``. Only a whitelisted tree is evaluated, never by ``eval``:
numbers, ``+ - * / // % **``, unary ``-``/``+``, ``len`` of a literal, the pure functions
of ``math`` in FUNCTIONS (or numpy's functions of those names, applied to a number) and the
constants in CONSTANTS (``math.pi``, ``numpy.e``...). Anything else is refused: another name
or call, an exponent over MAX_EXPONENT, a result over LIMIT, a division by zero, a value that
is not a finite int or float (JSON has no inf). With a ``namespace`` (the probe) a name
counts by the object it is bound to (``sqrt`` from sympy is not ``math.sqrt``); without one
(the host's static usage mining) only the written ``math.X``, ``np.X`` and ``numpy.X`` count.
"""

import ast
import copy
import inspect
import math
import operator
import sys
import typing

__all__ = ["fold_key", "folded", "literal_value"]

FUNCTIONS = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "exp": math.exp,
    "log": math.log,
    "log10": math.log10,
    "radians": math.radians,
    "degrees": math.degrees,
    "hypot": math.hypot,
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
MODULES = {"math": "math", "np": "numpy", "numpy": "numpy"}
"""The modules whose functions and constants fold, by the names docs write them under."""
MAX_EXPONENT = 1000
LIMIT = 1e300
OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, RecursionError, MemoryError)


class _Refused(Exception):
    pass


def literal_value(node: ast.AST, namespace: typing.Any = None) -> typing.Any:
    """``ast.literal_eval`` of ``node`` with its arithmetic over numbers folded; raises
    ValueError (as literal_eval does) when it is no literal."""
    return ast.literal_eval(folded(node, namespace))


def folded(node, namespace=None, ignore=()):
    """``node`` when it is a literal already or holds nothing to fold; else a copy whose
    foldable parts (``2**10``, ``math.pi/4``) are the numbers they make. ``ignore``: names
    the session bound itself, which mean what the session made them."""
    if not any(_foldable(n) for n in ast.walk(node)):
        return node  # the common case, checked cheaply
    try:
        ast.literal_eval(node)
        return node
    except _LITERAL_ERRORS:
        pass
    scope = None if namespace is None else _Scope(namespace, ignore)

    class Fold(ast.NodeTransformer):
        def visit(self, inner):
            if isinstance(getattr(inner, "ctx", None), (ast.Store, ast.Del)):
                return inner
            if isinstance(inner, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Attribute)):
                try:
                    return ast.copy_location(ast.Constant(number(inner, scope)), inner)
                except _Refused:
                    pass
            return self.generic_visit(inner)

    try:
        return Fold().visit(copy.deepcopy(node))
    except (RecursionError, MemoryError):
        return node


def _foldable(node):
    if isinstance(node, ast.BinOp) or _length_call(node):
        return True
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return isinstance(node, (ast.Name, ast.Attribute)) and (name in FUNCTIONS or name in CONSTANTS)


class _Scope:
    """A namespace less the names the session bound itself."""

    def __init__(self, namespace, ignore=()):
        self.namespace, self.ignore = namespace, ignore

    def __contains__(self, name):
        return name in self.namespace and name not in self.ignore

    def get(self, name):
        return None if name in self.ignore else self.namespace.get(name)


def fold_key(namespace):
    """What of ``namespace`` folding depends on: the names bound to math's or numpy's
    functions, constants and modules (for a cache of lines read under it)."""
    return frozenset(
        name
        for name, value in namespace.items()
        if (inspect.ismodule(value) and value.__name__ in MODULES.values())
        or (name in FUNCTIONS and _is(value, name, FUNCTIONS))
        or (name in CONSTANTS and _is(value, name, CONSTANTS))
    )


def number(node, namespace=None):
    """The finite int or float ``node`` makes by the whitelisted arithmetic; raises _Refused."""
    try:
        value = _evaluate(node, namespace)
    except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError):
        raise _Refused from None
    return _checked(value)


def _checked(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Refused
    if isinstance(value, float) and not math.isfinite(value):
        raise _Refused
    if abs(value) > LIMIT:
        raise _Refused
    return value


def _evaluate(node, namespace):
    if isinstance(node, ast.Constant):
        return _checked(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand, namespace)
        return _checked(-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _evaluate(node.left, namespace), _evaluate(node.right, namespace)
        if isinstance(node.op, ast.Pow):
            _bounded_power(left, right)
        return _checked(OPERATORS[type(node.op)](left, right))
    if _length_call(node):
        if namespace is not None and "len" in namespace:
            raise _Refused  # the session's own ``len``
        try:
            value = ast.literal_eval(node.args[0])
        except _LITERAL_ERRORS:
            raise _Refused from None
        if not isinstance(value, (list, tuple, str, dict, set)):
            raise _Refused
        return len(value)
    if isinstance(node, ast.Call):
        name = _known(node.func, namespace, FUNCTIONS)
        if name is None or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _Refused
        return _checked(FUNCTIONS[name](*(_evaluate(a, namespace) for a in node.args)))
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _known(node, namespace, CONSTANTS)
        if name is None:
            raise _Refused
        return CONSTANTS[name]
    raise _Refused


def _length_call(node):
    """``len(literal)``: ``lengths = [len(X1), len(X2)]`` once the names are the lists."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    )


def _bounded_power(base, exponent):
    """Refuse a power whose exponent or result is too large to compute cheaply."""
    if abs(exponent) > MAX_EXPONENT:
        raise _Refused
    if abs(base) > 1 and exponent > 0 and exponent * math.log10(abs(base)) > math.log10(LIMIT):
        raise _Refused


def _known(node, namespace, table):
    """The name in ``table`` that ``node`` stands for (``math.sqrt``, ``np.pi``, ``radians``
    bound to ``math.radians``), or None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        module, name = node.value.id, node.attr
        if name not in table:
            return None
        if namespace is None or module not in namespace:  # written by name: math.pi
            return name if module in MODULES else None
        held = namespace.get(module)
        if not inspect.ismodule(held) or held.__name__ not in MODULES.values():
            return None
        return name if _is(getattr(held, name, None), name, table) else None
    if isinstance(node, ast.Name) and namespace is not None and node.id in table:
        return node.id if _is(namespace.get(node.id), node.id, table) else None
    return None


def _is(value, name, table):
    """Whether ``value`` is the math (or numpy) function or constant ``name``."""
    if table is CONSTANTS:
        return type(value) is float and value == CONSTANTS[name]
    if value is FUNCTIONS[name]:
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and value is getattr(numpy, name, None)
