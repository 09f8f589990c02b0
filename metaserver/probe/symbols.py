"""Probe helper (runs INSIDE the target environment; standard library only): arguments
written as arithmetic over plain SymPy symbols, passed as the text the ``sympy`` codec
parses (runtime/decode.py reads text through SymPy's own parser).

After ``x = Symbol('x')`` (or ``x, y = symbols('x y')``, or ``from sympy.abc import x``),
``integrate(x**2 + 1, x)`` passes ``"x**2 + 1"``: the parser reads a bare name as exactly
the symbol ``Symbol('x')`` makes, so the text is the same expression. Only such plain
symbols count: a symbol with assumptions (``Symbol('x', positive=True)``) is no text (the
text would lose them) and stays an object the session builds. The expression is numbers,
the symbols, ``+ - * / **``, unary ``-`` and one ordering comparison (``x > 0``); its
arithmetic over numbers alone is folded first (``1/3*x`` is ``0.333...*x`` in Python, as
the folded text makes it, not the parser's ``x/3``).
"""

import ast
import copy
import keyword
import re
import sys

from .fold import folded

__all__ = ["TEXT_CODEC", "plain_symbols", "symbol_class", "symbol_text"]

TEXT_CODEC = "sympy"
"""The codec whose text form these arguments take (schemas.class_schema)."""
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
ORDERINGS = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _sympy():
    return sys.modules.get(TEXT_CODEC)


def symbol_class():
    """The class of the symbols the codec's parser makes of a name; None without SymPy."""
    sympy = _sympy()
    return getattr(sympy, "Symbol", None) if sympy is not None else None


def plain(value):
    """The symbol's name when ``value`` is a symbol the parser would make of its name (no
    assumptions); None otherwise."""
    cls = symbol_class()
    if cls is None or type(value) is not cls:
        return None
    try:
        if value.assumptions0 != {"commutative": True}:
            return None
    except Exception:
        return None
    return value.name if _readable(value.name) else None


def _readable(name):
    return isinstance(name, str) and _NAME.fullmatch(name) and not keyword.iskeyword(name)


def plain_symbols(statement, resolve):
    """``{variable: symbol name}`` for the names ``statement`` binds to plain symbols
    (``x = Symbol('x')``, ``x, y = symbols('x y')``, ``x = symbols('x')``): a call of the
    codec's own ``Symbol`` or ``symbols`` with one text and no keyword (assumptions).
    ``resolve``: the callable a call's function node names (session_names.resolve)."""
    sympy = _sympy()
    if sympy is None or not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return {}
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return {}
    callee = resolve(call.func)
    names = [n for n in re.split(r"[\s,]+", call.args[0].value.strip()) if n]
    if not names or not all(_readable(n) for n in names):
        return {}
    target = statement.targets[0]
    if callee is getattr(sympy, "Symbol", None):
        singles = [names[0]] if len(names) == 1 and call.args[0].value == names[0] else []
    elif callee is getattr(sympy, "symbols", None):
        singles = names
    else:
        return {}
    if isinstance(target, ast.Name) and len(singles) == 1:
        return {target.id: singles[0]}
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(singles) > 0:
        if all(isinstance(t, ast.Name) for t in target.elts):
            return {t.id: s for t, s in zip(target.elts, singles, strict=True)}
    return {}


def symbol_text(node, symbols, namespace, assigned):
    """The parser's text for ``node`` when it is arithmetic over plain symbols and numbers
    holding at least one symbol; None otherwise. ``symbols``: the session's variables bound
    to plain symbols (``plain_symbols``) or to such arithmetic (``expr = x**2 + 1``: its
    text); ``namespace``: names imported (``from sympy.abc import x``);
    ``assigned``: the names the session bound otherwise, which mean what it made them."""
    if _sympy() is None:
        return None
    node = folded(node, namespace, assigned - set(symbols))
    found = []

    class Text(ast.NodeTransformer):
        def visit_Name(self, name):
            symbol = symbols.get(name.id)
            if symbol is None and name.id not in assigned:
                symbol = plain(namespace.get(name.id))
            if symbol is None:
                raise ValueError(name.id)
            found.append(symbol)
            return ast.parse(symbol, mode="eval").body  # a name, or an expression's text

        def visit_Constant(self, constant):
            value = constant.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(value)
            if value < 0:  # ``(-3)**x``: the sign kept inside the power
                return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value))
            return constant

        def generic_visit(self, inner):
            if not _allowed(inner):
                raise ValueError(type(inner).__name__)
            return super().generic_visit(inner)

    try:
        text = ast.unparse(Text().visit(copy.deepcopy(node)))
    except (ValueError, RecursionError):
        return None
    return text if found else None


def _allowed(node):
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ARITHMETIC)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd))
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and isinstance(node.ops[0], ORDERINGS)
    return isinstance(node, (ast.operator, ast.unaryop, ast.cmpop, ast.expr_context))
