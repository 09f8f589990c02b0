"""Probe helper (runs INSIDE the target environment; standard library only): a package's
module-level constants that a doctest session passes as data.

``TEMPERATURE_MODEL_PARAMETERS['sapm']['open_rack_glass_glass']`` (imported from the
package, or reached as ``pkg.temperature.TEMPERATURE_MODEL_PARAMETERS[...]``) is plain data
at probe time: when its value is JSON (``json_values.json_safe``), the session's line is
read with that value written in, exactly as a name bound to a literal is
(``examples.Literals``). Only a constant's spelling counts (a PEP 8 ``UPPER_CASE`` name):
a lowercase module global may be anything the session's unshown setup meant. The value is
read, never computed: module attributes by ``inspect.getattr_static``, then literal keys of
plain dicts, lists and tuples; an enum member is a member, not its value, and is left alone.
A name the session binds itself is the session's, not the module's.
"""

import ast
import copy
import enum
import inspect
import re

from .json_values import Unsupported, json_safe

MAX_ITEMS = 500
"""A constant with more items than this is a table, not an argument: left as written."""
MAX_TEXT = 4000

_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")


def constants_key(doc, namespace):
    """What a session's reading of ``doc`` takes from ``namespace`` besides its own imports:
    the constants it may name (part of ``sessions``' cache key)."""
    return frozenset((n, id(namespace[n])) for n in _words(doc) if n in namespace)


_WORDS = {}


def _words(doc):
    if doc not in _WORDS:
        _WORDS[doc] = frozenset(re.findall(r"\b[A-Z][A-Z0-9_]*\b", doc))
    return _WORDS[doc]


def stored(statement):
    """The names ``statement`` binds itself (targets, loop variables, definitions); not an
    import's, which binds the package's own value (``from pkg import LIMITS``)."""
    names = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def inline_constants(node, namespace, bound=()):
    """``node`` with each package constant whose value is JSON written as that literal;
    ``node`` itself when it names none (parsed lines are shared, never changed). ``bound``:
    the names the session bound itself, which mean what the session made them."""
    if not any(_named(n, namespace) for n in ast.walk(node)):
        return node  # the common case, checked cheaply: no constant's name at all
    if not any(constant_literal(n, namespace, bound) is not None for n in ast.walk(node)):
        return node

    class Put(ast.NodeTransformer):
        def visit(self, inner):  # top down: the outermost path that is a constant wins
            literal = constant_literal(inner, namespace, bound)
            if literal is not None:
                literal.constant = True  # ``inlined``: a line of a constant's, not literals
                return ast.copy_location(literal, inner)
            return self.generic_visit(inner)

    return ast.fix_missing_locations(Put().visit(copy.deepcopy(node)))


def inlined(node):
    """Whether ``node`` holds a constant's value that ``inline_constants`` wrote in: a README's
    call of literals alone is the host's to read (agents/repo_docs/usage.py), one of
    constants is not."""
    return any(getattr(n, "constant", False) for n in ast.walk(node))


def _named(node, namespace):
    if isinstance(node, ast.Name):
        return node.id in namespace and _CONSTANT.fullmatch(node.id) is not None
    return isinstance(node, ast.Attribute) and _CONSTANT.fullmatch(node.attr) is not None


def constant_literal(node, namespace, bound=()):
    """The literal (an ``ast`` expression) of the constant ``node`` reads, or None."""
    if not isinstance(getattr(node, "ctx", None), ast.Load):
        return None
    value = constant_value(node, namespace, bound)
    if value is _MISSING:
        return None
    try:
        text = repr(json_safe(value))
    except (Unsupported, RecursionError):
        return None
    if len(text) > MAX_TEXT:
        return None
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_MISSING = object()


def constant_value(node, namespace, bound=()):
    """The value of a package constant that ``node`` reads (a name, a module attribute path,
    then literal subscripts), or ``_MISSING``."""
    keys = []
    while isinstance(node, ast.Subscript):
        try:
            keys.append(ast.literal_eval(node.slice))
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return _MISSING
        node = node.value
    path = []
    while isinstance(node, ast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id in bound or node.id not in namespace:
        return _MISSING
    names = [node.id, *reversed(path)]
    if not _CONSTANT.fullmatch(names[-1]):
        return _MISSING
    value = namespace[node.id]
    package = _package(namespace)
    if path and not (inspect.ismodule(value) and _top(value.__name__) == package):
        return _MISSING
    for name in path:
        if not inspect.ismodule(value) or _top(value.__name__) != package:
            return _MISSING  # a module of the package holds it, nothing else
        try:
            value = inspect.getattr_static(value, name)
        except AttributeError:
            return _MISSING
    for key in reversed(keys):
        value = _item(value, key)
        if value is _MISSING:
            return _MISSING
    if isinstance(value, enum.Enum) or not _small(value):
        return _MISSING
    return value


def _item(value, key):
    """``value[key]`` for a plain dict, list or tuple, read without calling anything else."""
    if isinstance(value, dict) and isinstance(key, (str, int)):
        return dict.get(value, key, _MISSING) if dict.__contains__(value, key) else _MISSING
    if type(value) in (list, tuple) and type(key) is int and -len(value) <= key < len(value):
        return value[key]
    return _MISSING


def _small(value, budget=None):
    """Whether ``value`` holds at most ``MAX_ITEMS`` items, nested ones counted."""
    budget = [MAX_ITEMS] if budget is None else budget
    if isinstance(value, (list, tuple, dict)):
        budget[0] -= len(value)
        if budget[0] < 0:
            return False
        items = value.values() if isinstance(value, dict) else value
        return all(_small(v, budget) for v in items)
    return True


def _package(namespace):
    package = namespace.get("<package>")
    if package is not None:
        return package.__name__
    return _top(namespace.get("__name__") or "") or None


def _top(name):
    return name.partition(".")[0]
