"""Probe helper (runs INSIDE the target environment; standard library only): instances of a
package class that a MODULE of the package holds, as arguments.

``from moneyed import Money, USD`` then ``Money('19.50', USD)``: ``USD`` is a ``Currency``
the package binds at module level. A parameter that takes the class offers such names as it
offers the instances the class itself holds (``Geodesic.WGS84``): ``{"attribute": "USD"}``
(``schemas.with_attributes``), which ``runtime/decode.py`` resolves in the same order as
here: the class's own attribute, then the module that defines the class, then the package's
top module; the first of them that binds the name to an instance of the class gives it.
A parameter whose plain JSON arm stands beside the class (``currency: str | Currency``)
keeps that arm as it is and gets the codec ``held:<class>``, which decodes only that form.
"""

import ast
import inspect
import sys

from .doctest_lines import bound_by
from .json_values import Unsupported, json_safe

MAX_HELD = 400
"""A class with more module-held instances than this offers none (the schema lists them)."""


def holders(cls):
    """The modules whose instances of ``cls`` a parameter offers, in decoding order."""
    module = getattr(cls, "__module__", "") or ""
    names = [module, module.partition(".")[0]]
    return [sys.modules[n] for n in dict.fromkeys(names) if n in sys.modules]


def module_instances(cls, skip=()):
    """Public names of ``holders(cls)`` bound to instances of ``cls``, the first holder's
    first; ``skip``: names the class itself holds (decoded as those). Empty when more than
    ``MAX_HELD``. Remembered per class and holders' sizes: every parameter asks."""
    modules = holders(cls)
    key = (id(cls), tuple(skip), tuple((m.__name__, len(vars(m))) for m in modules))
    if key not in _INSTANCES:
        _INSTANCES[key] = _instances(cls, modules, skip)
    return list(_INSTANCES[key])


_INSTANCES = {}


def _instances(cls, modules, skip):
    found = {}
    for module in modules:
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for name, value in items:
            if name.startswith("_") or name in found or name in skip:
                continue
            try:
                if _instance(value, cls):
                    found[name] = value
            except Exception:  # noqa: S112  (a value whose check raises is not offered)
                continue
    return sorted(found) if len(found) <= MAX_HELD else []


def _instance(value, cls):
    """An instance of ``cls`` by its class's own bases (a metaclass that decides
    ``isinstance`` for values, ``Number``'s, does not make a module's ``5`` one)."""
    mro = getattr(type(value), "__mro__", ())
    return cls in mro and not inspect.isroutine(value) and not inspect.isclass(value)


def held_by_name(name, cls):
    """What ``{"attribute": name}`` decodes to for a parameter of ``cls`` (as decode.py
    does), or None."""
    if name.startswith("_"):
        return None
    for holder in [cls, *holders(cls)]:
        try:
            value = inspect.getattr_static(holder, name)
        except AttributeError:
            continue
        if _instance(value, cls):
            return value
    return None


def written_name(node):
    """The name a line writes for a value: ``USD``, or the last part of ``moneyed.USD``;
    None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def module_held(node, namespace, package):
    """``(class, name)`` when ``node`` names an instance of a class of ``package`` that the
    codec of that class gives back by ``name`` (``USD``, ``moneyed.USD``); None otherwise."""
    name = written_name(node)
    if name is None:
        return None
    value = _read(node, namespace)
    cls = type(value)
    if value is None or (getattr(cls, "__module__", "") or "").partition(".")[0] != package:
        return None
    if inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value):
        return None
    return (cls, name) if held_by_name(name, cls) is value else None


def _read(node, namespace):
    """The value a name or a module attribute path names, read without calling anything."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _read(node.value, namespace)
        if inspect.ismodule(base):
            try:
                return inspect.getattr_static(base, node.attr)
            except AttributeError:
                return None
    return None


def held_arguments(call, signature, exposed, namespace, package):
    """The call's arguments by name when each is a literal or a module-held instance of the
    package (``Money('19.50', USD)``: ``{"amount": "19.50", "currency": {"attribute":
    "USD"}}``), at least one the latter; None otherwise."""
    held = []

    def value(node):
        found = module_held(node, namespace, package)
        if found is None:
            return ast.literal_eval(node)
        held.append(found)
        return {"attribute": found[1]}

    arguments = bound_by(call, signature, value)
    if arguments is None or not held or not set(arguments) <= exposed:
        return None
    try:
        return {k: json_safe(v) for k, v in arguments.items()}
    except (Unsupported, RecursionError):
        return None
