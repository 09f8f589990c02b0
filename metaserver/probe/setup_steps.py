"""Probe helper (runs INSIDE the target environment; standard library only): a setup
step: a call of a built object's plain method with literal arguments.

``acc = Tally()`` then ``acc.add(1)``: the second line is a step of ``Tally.add`` on the
handle the first returned, replayed before the documented call (``setup_step``); a method's
signature is its function's, or the one a C extension's docstring writes
(``method_signature``).
"""

import inspect
import types

from .doctest_lines import literal_arguments
from .guide_signatures import guide_signature
from .signatures import text_signature

MAX_STEPS = 12


def setup_step(owner, owner_target, name, call, steps, source):
    """``steps`` and one more: a call of ``owner.name`` with literal arguments; None when it
    is not a plain method with such arguments (the session can no longer be replayed)."""
    if len(steps) >= MAX_STEPS:
        return None
    signature = method_signature(owner, name)
    if signature is None or name.startswith("_"):
        return None
    parameters = list(signature.parameters.values())[1:]
    signature = signature.replace(parameters=parameters)
    arguments = literal_arguments(call, signature, {p.name for p in parameters})
    if arguments is None:
        return None
    step = {"line": source, "target": f"{owner_target}.{name}", "member": name}
    return [*steps, dict(step, arguments=arguments)]


def method_signature(owner, name):
    """The signature (``self`` first) of ``owner``'s plain method ``name``: a function, or
    a C extension's method whose docstring writes its call; None for anything else."""
    static = inspect.getattr_static(owner, name, None)
    if inspect.isfunction(static):
        try:
            return inspect.signature(static)
        except (TypeError, ValueError):
            return None
    native_class_method = isinstance(static, types.ClassMethodDescriptorType)
    if inspect.ismethoddescriptor(static) and not native_class_method:
        if not isinstance(static, (staticmethod, classmethod)):
            stated = text_signature(static, name, method=True)
            return stated if stated is not None else guide_signature(name, method=True)
    return None
