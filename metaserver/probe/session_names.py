"""Probe helper (runs INSIDE the target environment; standard library only): what a
session's dotted name means in its namespace.

``resolve`` reads ``pkg.sub.Cls`` or ``Cls`` (a name a session's import bound) to the
object; ``PACKAGE`` is the namespace key under which a session holds the package's own top
module. Imports nothing else of the probe.
"""

import ast
import inspect

PACKAGE = "<package>"
"""The namespace key of the package's top module (not an identifier: no line can bind it)."""


def resolve(node, namespace):
    if isinstance(node, ast.Name):
        return namespace.get(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id not in namespace:
            return _aliased(node.attr, namespace.get(PACKAGE))
        base = resolve(node.value, namespace)
        if base is None or not (inspect.ismodule(base) or inspect.isclass(base)):
            return None
        try:
            found = inspect.getattr_static(base, node.attr)
        except AttributeError:
            if not (inspect.ismodule(base) and "__getattr__" in vars(base)):
                return None
            try:  # a module's ``__getattr__`` (PEP 562): ``examples.get_path``
                return getattr(base, node.attr)
            except Exception:
                return None
        if isinstance(found, (classmethod, staticmethod)):  # what the call really calls
            return found.__get__(None, base)
        return found
    return None


def _aliased(name, package):
    """``ct.tf`` where the session never bound ``ct``: docs import their package under an
    alias in a setup they do not show. The package's own public callable of that name,
    else None (``np.array`` is no callable of this package)."""
    if package is None or name.startswith("_"):
        return None
    try:
        value = inspect.getattr_static(package, name)
    except AttributeError:
        return None
    module = getattr(value, "__module__", "") or ""
    own = module.partition(".")[0] == package.__name__
    return value if own and (inspect.isclass(value) or inspect.isroutine(value)) else None
