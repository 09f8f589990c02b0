"""Probe helper (runs INSIDE the target environment; standard library only): objects the
session built, followed through its lines and passed to a receiver's construction.

A built object stays an argument only while the session leaves it as its steps rebuild it:
``changed`` notes one that a line may change otherwise (``span.grow(2)``, ``g.x = 1``),
``passed`` the ones a line hands to a call. A receiver's construction may take such objects
(``bound_objects``): a variable the session built, or a call of the package's own builder
written inline (``Array(FixedMount(30, 90))``, recursively): the steps that build them come
first, and the construction ``takes`` each (the index of the step after which the session
holds it). ``a.is_compatible(b)``, a method's call given them, is built_arguments.py's
(``object_arguments``), as a function's arguments are.
"""

import ast

from .doctest_lines import bound_by
from .json_values import Unsupported, json_safe

MAX_STEPS = 12


def changed(statement, objects, stale):
    """Add to ``stale`` each object the session built (``objects``: variable -> its steps)
    that ``statement`` may change otherwise than by a step: a method called on it
    (``span.grow(2)``), an attribute or item of it set; its steps would rebuild it as it
    was, so a later call given it is no replay of the example. A name the statement binds
    anew is no longer stale."""
    for node in ast.walk(statement):
        base = stored_base(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            base = receiver.id if isinstance(receiver, ast.Name) else None
        if base in objects:
            stale.add(base)
    if isinstance(statement, ast.Assign):
        stale -= {t.id for t in statement.targets if isinstance(t, ast.Name)}


def stored_base(node):
    """The variable whose attribute or item ``node`` sets (``net.cap[0] = 3``: ``net``);
    None for any other node."""
    if not (isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store)):
        return None
    base = node.value
    while isinstance(base, (ast.Attribute, ast.Subscript)):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def passed(statement, names, builds):
    """The ``names`` (objects the session built) that ``statement`` passes to a method
    call, as an argument or an item of a list or tuple argument (``x.feed(acc)``,
    ``x.feed([acc])``): the method may change them, and no step that builds them repeats
    it, so what they show later is no replay's. A construction (``builds(func)``: a
    class, ``PVSystem(arrays=[one, two])``) holds them and changes nothing."""
    found = set()
    for node in ast.walk(statement):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if builds(node.func):
            continue
        for given in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(given, ast.Starred):
                given = given.value
            items = given.elts if isinstance(given, (ast.List, ast.Tuple)) else [given]
            found |= {i.id for i in items if isinstance(i, ast.Name) and i.id in names}
    return found


def bound_objects(call, signature, exposed, known, build):
    """(literal arguments, the steps that built the others, each such parameter's index
    of the step after which the session holds its object) when every argument of ``call``
    is a literal, a variable the session built (``known``: variable -> its steps), a
    call that ``build(node)`` gives the steps of (an object of the package built inline),
    or a list or tuple of those objects (``PVSystem(arrays=[one, two])``: its parameter
    takes the list of their indices, in order); None otherwise."""
    built = {}

    def single(node):
        steps = known.get(node.id) if isinstance(node, ast.Name) else None
        if steps is None and isinstance(node, ast.Call):
            steps = build(node)
        return steps

    def value(node):
        steps = single(node)
        items = _listed(node, single) if steps is None else None
        if steps is not None or items is not None:
            marker = object()
            built[id(marker)] = [steps] if items is None else items
            return marker if items is None else _Listed(marker)
        return ast.literal_eval(node)

    bound = bound_by(call, signature, value)
    if bound is None:
        return None
    arguments, steps, takes = {}, [], {}
    for name, given in bound.items():
        marker = given.marker if isinstance(given, _Listed) else given
        if id(marker) in built:
            held = []
            for item in built[id(marker)]:
                steps += [dict(step, **moved_takes(step, len(steps))) for step in item]
                held.append(len(steps) - 1)
            takes[name] = held if isinstance(given, _Listed) else held[0]
            continue
        try:
            arguments[name] = json_safe(given)
        except Unsupported:
            return None  # an object inside a list with literals, or in ``*args``
    if not takes or len(steps) >= MAX_STEPS or not set(arguments) | set(takes) <= exposed:
        return None
    return arguments, steps, takes


class _Listed:
    """A list or tuple argument whose items are objects the session built."""

    def __init__(self, marker):
        self.marker = marker


def _listed(node, single):
    """The steps of each item of ``node``, a list or tuple of objects the session built;
    None when it is anything else (an item a literal, or an object nothing builds)."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    items = [single(item) for item in node.elts]
    return None if any(steps is None for steps in items) else items


def moved_takes(step, offset):
    """``{"takes": ...}`` of ``step`` moved ``offset`` places later (a list of indices
    item by item); empty when it takes nothing."""
    takes = step.get("takes")
    if not takes:
        return {}
    return {
        "takes": {
            name: [i + offset for i in index] if isinstance(index, list) else index + offset
            for name, index in takes.items()
        }
    }
