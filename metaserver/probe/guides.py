"""Probe helper (runs INSIDE the target environment; standard library only): the class of
the objects each variable of the README and guides holds.

A library's functions often leave their object parameter unannotated and undocumented
(``degree(G, nbunch=None)``) while its guides always bind that name to one of its objects
(``G = nx.Graph()``, ``G = nx.DiGraph()``): the name is the library's convention. Such a
parameter takes the class every binding is an instance of (the guides' most general one),
so that its tool is given a built object instead of a guessed JSON literal. A name the
guides ever bind to anything else (a literal, another library's object, a loop variable) is
no convention and types nothing; a call of the package whose result's class is not known
neither confirms nor refutes it.
"""

import ast
import inspect
import sys

from .returns import returned_class
from .session_names import PACKAGE, resolve
from .session_reading import session_statements

_TEXTS = []
_FOUND = {}


def set_texts(texts):
    """The README's and guides' code (members.set_guides)."""
    _TEXTS[:] = list(texts)
    _FOUND.clear()


def variable_class(name, package):
    """The package's class that the guides' variable ``name`` always holds, or None."""
    if package not in _FOUND:
        _FOUND[package] = _variables(_TEXTS, package)
    return _FOUND[package].get(name)


def _variables(texts, package):
    top = sys.modules.get(package)
    if top is None:
        return {}
    bound, refused = {}, set()
    for text in texts:
        namespace = {package: top, PACKAGE: top}
        for _, statement in session_statements(text, namespace):
            names = _rebound(statement)
            if not names:
                continue
            target = _single_target(statement)
            cls = _built_class(statement.value, namespace, package) if target else False
            for name in names:
                if name != target or cls is False:
                    refused.add(name)
                elif cls is not None:
                    bound.setdefault(name, []).append(cls)
    found = {}
    for name, classes in bound.items():
        if name in refused:
            continue
        # The one class all the others derive from (Graph for Graph and DiGraph); none
        # when the guides bind the name to unrelated classes.
        general = [c for c in classes if all(issubclass(o, c) for o in classes)]
        if general:
            found[name] = general[0]
    return found


def _rebound(statement):
    """The names a statement binds anew (``G = ...``, ``for G in ...``), not those whose
    item or attribute it sets (``G[1][2]["weight"] = 4`` leaves ``G`` the same object)."""
    return {
        n.id
        for n in ast.walk(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _single_target(statement):
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id
    return None


def _built_class(node, namespace, package):
    """The package's class of the object a call of the package builds (its constructor, or
    a function whose annotation or docstring says what it returns); None when the call is
    the package's but what it returns is not known; False when it is no call of the
    package (a literal, another library's value)."""
    if not isinstance(node, ast.Call):
        return False
    callee = resolve(node.func, namespace)
    if callee is None or not _own(callee, package):
        return False
    if inspect.isclass(callee):
        return callee
    returned = returned_class(callee) if callable(callee) else None
    return returned if inspect.isclass(returned) and _own(returned, package) else None


def _own(obj, package):
    return (getattr(obj, "__module__", "") or "").partition(".")[0] == package
