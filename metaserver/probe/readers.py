"""Probe helper (runs INSIDE the target environment; standard library only): whether a call
of one of the package's functions leaves an object a session built as it was.

A session line that hands a built object to a function (``sat_epoch_datetime(satellite)``)
may change it, and no step that builds the object repeats that: so the object is no
receiver of later examples (sessions._forget). A function that only reads the parameter
the object reaches (``year = sat.epochyr``, ``getattr(sat, name)``) changes nothing; read
from its source, such a call leaves the receiver as it was. What the function does with a
value it read (an alias of a mutable attribute) is not followed: a wrong judgement only
makes a later replay differ from the docs, which validation reports as ours.
"""

import ast
import inspect
import textwrap

_READING_BUILTINS = frozenset({"getattr", "hasattr", "isinstance", "len"})


def reads_only_arguments(func, call, names):
    """Whether ``call`` (a call of ``func``) passes each of ``names`` it passes at all to a
    parameter that ``func``'s own source only reads."""
    if not inspect.isfunction(func):
        return False
    given = _parameters_given(func, call, names)
    if given is None:
        return False
    if not given:
        return True
    definition = _definition(func)
    if definition is None:
        return False
    return all(_only_read(definition, parameter) for parameter in given)


def _parameters_given(func, call, names):
    """The parameters of ``func`` that receive one of ``names``; None when that cannot be
    told (a starred argument, a name inside a container, a call that does not bind)."""
    markers, given = {}, set()
    args = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            return None
        args.append(_marker(node, names, markers))
    kwargs = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        kwargs[keyword.arg] = _marker(keyword.value, names, markers)
    if any(
        isinstance(n, ast.Name) and n.id in names and not _direct(n, call)
        for n in ast.walk(call)
        if n is not call.func
    ):
        return None  # ``f([sat])``, ``f(sat.copy())``: not handed over as it is
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    parameters = inspect.signature(func).parameters
    for name, value in bound.arguments.items():
        kind = parameters[name].kind
        if kind in (kind.VAR_POSITIONAL, kind.VAR_KEYWORD):
            items = value.values() if isinstance(value, dict) else value
            if any(id(v) in markers for v in items):
                return None
            continue
        if id(value) in markers:
            given.add(name)
    return given


def _marker(node, names, markers):
    value = object()
    if isinstance(node, ast.Name) and node.id in names:
        markers[id(value)] = node.id
    return value


def _direct(name, call):
    return any(name is a for a in call.args) or any(name is k.value for k in call.keywords)


def _definition(func):
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != func.__name__:
        return None
    return node


def _only_read(definition, parameter):
    """Whether every use of ``parameter`` in ``definition``'s body loads an attribute that is
    then neither called, assigned into nor deleted, or hands it to a builtin that reads."""
    parents = {}
    for node in ast.walk(definition):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(definition):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if node is not definition and any(
                isinstance(n, ast.Name) and n.id == parameter for n in ast.walk(node)
            ):
                return False  # a closure over it may run later
        if not (isinstance(node, ast.Name) and node.id == parameter):
            continue
        if not isinstance(node.ctx, ast.Load):
            return False  # rebound: later uses are of something else, unknown
        if not _read_use(node, parents):
            return False
    return True


def _read_use(name, parents):
    parent = parents.get(name)
    if isinstance(parent, ast.Call) and name is not parent.func:
        func = parent.func
        return (
            isinstance(func, ast.Name)
            and func.id in _READING_BUILTINS
            and name is parent.args[0]
            and not parent.keywords
        )
    if not isinstance(parent, ast.Attribute) or parent.attr.startswith("__"):
        return False
    top = parent
    while isinstance(parents.get(top), ast.Attribute):
        top = parents[top]
    if not isinstance(top.ctx, ast.Load):
        return False  # ``sat.x = 1``, ``del sat.x``
    above = parents.get(top)
    if isinstance(above, ast.Call) and above.func is top:
        return False  # ``sat.reset()``, ``sat.arr.append(1)``
    if isinstance(above, ast.Subscript) and above.value is top:
        return isinstance(above.ctx, ast.Load)  # ``sat.arr[0] = 1`` changes it
    return not (isinstance(above, ast.AugAssign) and above.target is top)
