"""Probe helper (runs INSIDE the target environment; standard library only): examples of a
function whose documented arguments are objects an earlier line built.

``line = LineString([(0, 0), (1, 1)])`` then ``contains(line, Point(0, 0))`` -> ``False``
is an example of ``contains`` whose ``geom1`` is what the first line built and whose
``geom2`` is what ``Point(0, 0)`` builds: each becomes a session step with ``into`` (the
parameter that takes its result), replayed through that callable's own tool before the
call. Only calls of the package's own callables with literal arguments build values; the
documented output binds only to the line that printed it. A step names its callable by
``_id`` until ``probe_script`` knows the tool target the probe listed it under.
"""

import ast
import inspect
import sys

try:  # as metaserver.agents.analysis.probe.probe_values (tests), or beside probe_script.py
    from .probe_docs import MAX_EXAMPLES, WRAPPERS, _item
    from .probe_sessions import PACKAGE, _resolve, session_statements
    from .probe_types import Unsupported, json_safe
except ImportError:
    from probe_docs import MAX_EXAMPLES, WRAPPERS, _item
    from probe_sessions import PACKAGE, _resolve, session_statements
    from probe_types import Unsupported, json_safe


class _Built:
    """A placeholder for an argument that an earlier step builds."""

    def __init__(self, step):
        self.step = step


class _Held:
    """An argument that is an instance a class of the package holds (``Geodesic.WGS84``):
    passed as ``{"attribute": "WGS84"}``, which the class's codec decodes (runtime/decode)."""

    def __init__(self, cls, name):
        self.cls, self.name = cls, name


def value_examples(func, module, doc, signature, exposed, package, guide=False):
    """Examples of ``func`` from ``doc`` in which at least one argument is an object that a
    call of the package's own callables built (on an earlier line, or inline).

    ``guide``: ``doc`` is a README's code, where only a call that resolves to ``func``
    itself counts (a docstring may call its function by its bare name).
    """
    namespace = dict(vars(module)) if module is not None else {}
    if package in sys.modules:
        namespace.setdefault(package, sys.modules[package])
        namespace[PACKAGE] = sys.modules[package]
    names = {getattr(func, "__name__", "")}
    values = {}  # variable -> the step that built it
    found = []

    def example_of(node, want, source):
        """The example when ``node`` calls ``func`` with an argument a step builds."""
        wrapper = None
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in WRAPPERS | {"print"}
            and len(node.args) == 1
            and not node.keywords
        ):
            wrapper, node = node.func.id, node.args[0]
            if wrapper == "print":  # shown as text: the call, without an expected value
                wrapper, want = None, ""
        if not isinstance(node, ast.Call) or not _calls(node, func, namespace, names, guide):
            return None
        bound = _arguments(node, signature, namespace, package, values, source)
        if bound is None:
            return None
        arguments, steps, held = bound
        if not (steps or held) or not set(arguments) | {s["into"] for s in steps} <= exposed:
            return None  # literal calls alone: probe_docs.examples_for has them
        item = _item(arguments, wrapper, want, None)
        if item is None:
            return None
        item["session"] = steps
        if held:  # the class each such parameter takes (probe_members pops it)
            item["_held"] = held
        if item["has_expected"]:
            item["line"] = source
        return item

    for example, statement in session_statements(doc, namespace):
        if len(found) >= MAX_EXAMPLES:
            break
        source = example.source.strip()
        if isinstance(statement, ast.Assign):
            # ``resp = frequency_response(sys)``: a call of ours whose result is kept, not
            # shown; then the name holds what the line built (or nothing we can replay).
            item = example_of(statement.value, "", source)
            step = None
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                step = _build(statement.value, namespace, package, values, source)
            for target in statement.targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        values.pop(node.id, None)
            if step is not None:
                values[statement.targets[0].id] = step
        elif isinstance(statement, ast.Expr) and not example.exc_msg:
            item = example_of(statement.value, example.want.strip(), source)
        else:
            continue
        if item is not None:
            found.append(item)
    found.sort(key=lambda e: not e["has_expected"])
    return found


def _calls(node, func, namespace, names, guide):
    resolved = _resolve(node.func, namespace)
    if resolved is not None:
        return resolved is func
    return not guide and isinstance(node.func, ast.Name) and node.func.id in names


def _build(node, namespace, package, values, source):
    """The step that builds a value: a call of a callable of the package with literal
    arguments; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    callable_ = _resolve(node.func, namespace)
    if callable_ is None or not _own(callable_, package):
        return None
    try:
        signature = inspect.signature(callable_)
    except (TypeError, ValueError):
        return None
    bound = _arguments(node, signature, namespace, package, {}, source, depth=1)
    if bound is None or bound[1]:
        return None
    return {"line": source, "_id": id(callable_), "member": None, "arguments": bound[0]}


def _own(obj, package):
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)):
        return False
    return (getattr(obj, "__module__", "") or "").partition(".")[0] == package


def _arguments(node, signature, namespace, package, values, source, depth=0):
    """(literal arguments by name, steps whose results fill the others, the class of each
    argument that is a class's own instance) for ``node``'s call bound to ``signature``;
    None when an argument is none of these."""
    if any(k.arg is None for k in node.keywords) or any(
        isinstance(a, ast.Starred) for a in node.args
    ):
        return None
    try:
        args = [_value(a, namespace, package, values, source, depth) for a in node.args]
        kwargs = {
            k.arg: _value(k.value, namespace, package, values, source, depth) for k in node.keywords
        }
        bound = signature.bind(*args, **kwargs)
    except (_NotValue, TypeError):
        return None
    arguments, steps, held = {}, [], {}
    for name, value in bound.arguments.items():
        if isinstance(value, _Built):
            steps.append(dict(value.step, into=name))
            continue
        if isinstance(value, _Held):
            arguments[name], held[name] = {"attribute": value.name}, value.cls
            continue
        kind = signature.parameters[name].kind
        if (
            kind is inspect.Parameter.VAR_POSITIONAL
            and value
            and all(isinstance(v, _Built) for v in value)
        ):  # ``sqrt(ufloat(0, 1))`` with ``sqrt(*args)``: items of the list, in order
            steps += [dict(v.step, into=name, item=i) for i, v in enumerate(value)]
            continue
        try:
            arguments[name] = json_safe(value)
        except Unsupported:
            return None  # a placeholder inside *args or a container: not replayable
    return arguments, steps, held


class _NotValue(Exception):
    pass


def _value(node, namespace, package, values, source, depth):
    if isinstance(node, ast.Name) and node.id in values:
        return _Built(values[node.id])
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        pass
    held = _held(node, namespace, package)
    if held is not None:
        return held
    if depth == 0:
        step = _build(node, namespace, package, values, source)
        if step is not None:
            return _Built(step)
    raise _NotValue


def _held(node, namespace, package):
    """``Cls.NAME`` where ``Cls`` is a class of the package and ``Cls.NAME`` one of its
    instances (``Geodesic.WGS84``), as a ``_Held``; None for anything else."""
    if not isinstance(node, ast.Attribute) or node.attr.startswith("_"):
        return None
    owner = _resolve(node.value, namespace)
    if not (inspect.isclass(owner) and _own(owner, package)):
        return None
    value = _resolve(node, namespace)
    return _Held(owner, node.attr) if isinstance(value, owner) else None
