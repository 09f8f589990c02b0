"""Probe helper (runs INSIDE the target environment; standard library only): an attribute
assignment in a session as a setup step of the object it changes.

``m = Meter()`` then ``m.scale = Scale(2)`` then ``m.read(3)`` -> ``6``: the documented
value depends on the assignment, so the replay must make it too. It becomes a step of the
object's session (``assign`` the attribute, ``member`` the same name, ``target``
``module:Class.attribute``) replayed through a setter tool of the class (the generated
server sets the attribute on the handle's object: runtime/call.py ``setter``). The value is
a literal (``arguments["value"]``) or an object the session built (``Scale(2)`` inline, or a
variable): the steps that build it come first, and the setter step ``takes`` it. Each such
step carries the setter's candidate (``_setter``, by the class's id until script
names it) with an example of its own: the object's session before the assignment, the
value given as the line gave it.
"""

import ast

from .array_values import array_value
from .built_objects import moved_takes
from .json_values import Unsupported, json_safe
from .schemas import class_schema

MAX_STEPS = 12


def assignment(statement):
    """(variable, attribute, value node) when ``statement`` is ``name.attribute = value``
    (one target, a public attribute); None otherwise."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and not target.attr.startswith("_")
    ):
        return target.value.id, target.attr, statement.value
    return None


def _written(source):
    """The value of the assignment ``source`` as written (before literals were put in)."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return body[0].value if len(body) == 1 and isinstance(body[0], ast.Assign) else None


def literal(node):
    """``(value,)`` when ``node`` is a JSON-safe literal; None otherwise."""
    try:
        return (json_safe(ast.literal_eval(node)),)
    except (ValueError, TypeError, SyntaxError, Unsupported, RecursionError, MemoryError):
        return None


def assigned(cls, steps, attribute, value, source, head):
    """``steps`` (which build an object of ``cls``) with the assignment of ``attribute``
    after them; None when it cannot be replayed (no handle form for ``cls``, too long).

    ``value`` is ``(literal,)`` or the list of steps that build the object assigned;
    ``head`` names the setter (``{"target": "module:Class.attribute"}``, or ``{"_id":
    id(cls)}`` for script to name by the class's constructor)."""
    built = [] if isinstance(value, tuple) else [dict(s) for s in value]
    if not steps or len(steps) + len(built) >= MAX_STEPS:
        return None
    payload = _setter(cls, attribute, steps, value)
    if payload is None:
        return None
    step = {"line": source, **head, "member": attribute, "assign": attribute}
    if built:  # the value's steps first: the receiver's steps then build what the call sets
        moved = [_shifted(s, len(built)) for s in steps]
        step.update(arguments={}, takes={"value": len(built) - 1})
        return [*built, *moved, dict(step, _setter=payload)]
    step["arguments"] = {"value": value[0]}
    return [*(dict(s) for s in steps), dict(step, _setter=payload)]


def _shifted(step, offset):
    """A step moved ``offset`` places later: the indices it refers to move with it."""
    moved = dict(step, **moved_takes(step, offset))
    if step.get("on") is not None:
        moved["on"] = step["on"] + offset
    return moved


def _setter(cls, attribute, steps, value):
    """The setter's candidate, without its target: a method-kind tool that takes the object
    as a handle and the value as any JSON (a handle's id is replaced by its object)."""
    try:
        schema, codec = class_schema(cls)
    except Unsupported:
        return None
    if not (codec or "").startswith(("handle", "new")):
        return None  # an object with a JSON form comes back as data: nothing keeps it
    name = cls.__name__
    receiver = {
        "name": "handle",
        "kind": "positional_only",
        "json_schema": dict(schema, description=f"The {name} to set ``{attribute}`` on."),
        "required": True,
        "default": None,
        "description": None,
        "codec": codec,
    }
    given = {
        "name": "value",
        "kind": "positional_or_keyword",
        "json_schema": {"description": f"The new value of ``{attribute}``."},
        "required": True,
        "default": None,
        "description": f"The new value of ``{attribute}`` (a handle for an object).",
        "codec": None,
    }
    if isinstance(value, tuple) and len(value) == 2:  # an array (array_values.py)
        given["codec"] = value[1]
        given["json_schema"] = {
            "type": "array",
            "description": f"The new value of ``{attribute}``, an array as nested lists.",
        }
        given["description"] = given["json_schema"]["description"]
    # Its own example: the object as the session had it, the value as the line gave it (an
    # object built by one step of its own with literal arguments; else no example).
    session = [{k: v for k, v in s.items() if k != "_setter"} for s in steps]
    arguments = {}
    if isinstance(value, tuple):
        arguments["value"] = value[0]
    elif len(value) == 1 and not value[0].get("takes"):
        session.append({k: v for k, v in value[0].items() if k != "_setter"} | {"into": "value"})
    else:
        session = None
    doc = f"Set ``{attribute}`` of a {name} (``obj.{attribute} = value``), as its docs do."
    example = {
        "arguments": arguments,
        "wrapper": None,
        "origin": "doctest",
        "has_expected": False,
        "expected": None,
        "session": session,
    }
    return {
        "name": f"{name}.set_{attribute}",
        "signature": f"{name}.{attribute} = value",
        "parameters": [receiver, given],
        "hidden_parameters": [],
        "doc": doc,
        "summary": doc,
        "examples": [example] if session is not None else [],
        "in_all": False,
        "top_level": False,
        "kind": "method",
        "positional": ["handle"],
        "assigns": attribute,
        "annotated": 0.0,
    }


def setter_candidates(candidates):
    """The setters that the candidates' session steps assign through (each step's
    ``_setter``, popped), one per target, named by the step's target; steps whose target
    could not be named are left out."""
    found = {}
    listed = {c.get("target") for c in candidates}
    for candidate in candidates:
        for example in candidate.get("examples", []):
            for step in example.get("session") or []:
                payload = step.pop("_setter", None)
                target = step.get("target")
                if payload is None or not target or target in listed:
                    continue
                if target not in found:
                    owner = target.rpartition(".")[0]
                    found[target] = dict(payload, target=target, owner=owner)
                    found[target]["name"] = f"{owner.partition(':')[2]}.set_{payload['assigns']}"
                    found[target]["defined_in"] = owner
    return list(found.values())


def set_up(setting, owner, owner_target, built, build, namespace, source):
    """``m.scale = Scale(2)`` in a method's session: the assignment becomes a step of the
    receiver ``m`` (an ``owner``) or of the built object ``m`` (of ``classes[m]``); a
    receiver whose assignment cannot be replayed is forgotten (None). ``built`` is the
    session's (receivers, objects, classes); ``build(node, namespace, source, known)``
    gives the steps that build an object of the package, or None."""
    receivers, objects, classes = built
    variable, attribute, node = setting
    known = {**objects, **{k: v for k, v in receivers.items() if v is not None}}
    # ``m.startprob_ = np.array([0.6, 0.4])``: an array again when replayed (its codec's)
    value = array_value(node, _written(source), namespace) or literal(node)
    if value is None and isinstance(node, ast.Name):
        value = known.get(node.id)
    elif value is None:
        value = build(node, namespace, source, known)
    if variable in receivers:
        steps = receivers[variable]
        head = {"target": f"{owner_target}.{attribute}"}
        receivers[variable] = (
            assigned(owner, steps, attribute, value, source, head)
            if steps is not None and value is not None
            else None
        )
    cls = classes.get(variable)
    if objects.get(variable) is not None and cls is not None and value is not None:
        steps = assigned(cls, objects[variable], attribute, value, source, {"_id": id(cls)})
        if steps is not None:  # else the object as built: a call on it then is no exact replay
            objects[variable] = steps
