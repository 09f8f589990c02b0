"""Probe helper (runs INSIDE the target environment; standard library only): examples of a
function whose documented arguments are objects an earlier line built.

``line = LineString([(0, 0), (1, 1)])`` then ``contains(line, Point(0, 0))`` -> ``False``
is an example of ``contains`` whose ``geom1`` is what the first line built and whose
``geom2`` is what ``Point(0, 0)`` builds: each becomes a session step with ``into`` (the
parameter that takes its result), replayed through that callable's own tool before the
call. Only calls of the package's own callables with literal arguments build values; the
documented output binds only to the line that printed it. A step names its callable by
``_id`` until ``script`` knows the tool target the probe listed it under.

A list whose items the session built (``covariance_matrix([u, v])``) is one step per item
(``item``, its place in the list); an item bound to an expression of built values
(``total = u + 2*v``) is left out, and the line's output with it (the call is another).
A name the session never bound (``lqr(sys)``, its setup not shown) is built by the
constructor of the class the parameter's annotation or docstring type names
(``sys : StateSpace``), with that constructor's own documented arguments (a ``typed``
step: design fills them in), and the output is not the documented one either.
A class's instance set up by calls of its own plain methods with literal arguments
(``G = Graph()``, then ``G.add_edge("A", "B", weight=4)``) is rebuilt as the example had
it: each such call is a setup step of the argument (``member`` the method, ``on`` the index
of the step that built it), replayed through the method's tool on the handle that step
returned. A built value that a later line may have changed otherwise (``relabel(G)``,
``G.x = 1``, a method given a name or an expression) is still built by its step, which does
not repeat that line: a call on it afterwards is an example without the documented output
(ARCHITECTURE.md, "Honest attribution").

A method's documented call takes such objects the same way (``object_arguments``:
``a.is_compatible(b)`` after ``b = Version(2, 0, 0)``), after the steps of its receiver.
"""

import ast
import functools
import inspect
import sys
import typing

from .assign import assigned, assignment, literal
from .built_objects import MAX_STEPS, stored_base
from .constants import inlined
from .doc_types import documented_type
from .docstrings import parameter_types
from .doctest_lines import MAX_EXAMPLES, rounded, unwrapped
from .examples import (
    changed_names,
    example_item,
    held_name,
    held_value,
    hold_items,
    hold_names,
    shown_first,
    stated_line,
)
from .guide_signatures import guide_signature
from .guides import variable_class
from .held import module_held
from .json_values import Unsupported, json_safe
from .schemas import class_schema
from .session_names import PACKAGE, resolve
from .session_reading import session_statements
from .setup_steps import method_signature, setup_step
from .signatures import text_signature
from .stdlib_values import StdlibValue, stdlib_value
from .symbols import TEXT_CODEC, plain_symbols, symbol_class, symbol_text
from .text import shown_as_text


class _Built:
    """A placeholder for an argument that an earlier step builds; ``exact`` is False when a
    line between that step and the call may have changed the object (``G.add_edge(1, 2)``),
    which the replay does not repeat; ``setups`` are the calls of its own methods that set
    it up after it was built, which the replay does repeat."""

    def __init__(self, step, exact=True, setups=(), text=None):
        self.step, self.exact, self.setups = step, exact, list(setups)
        self.text = text  # a plain symbol's name: its text where a parameter parses text


class _Text:
    """Arithmetic over plain symbols (``x**2 + 1``), passed as the text the ``sympy`` codec
    parses (symbols.py)."""

    def __init__(self, text):
        self.text = text


class _Items:
    """A list argument whose items earlier steps built; ``exact`` is False when items bound
    to expressions of built values were left out."""

    def __init__(self, steps, exact):
        self.steps, self.exact = steps, exact


class _Unbound:
    """A name the session never bound: built by its parameter's class's constructor tool."""

    def __init__(self, name):
        self.name = name


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
    state = session_state()  # what the session bound, built, changed (session_state)
    builders = {}
    classes = _parameter_classes(func, signature, module, package)
    found = []

    def example_of(node, want, source):
        """The example when ``node`` calls ``func`` with an argument a step builds."""
        node, wrapper, want = shown_as_text(node, want)  # ``str(f(x))``: the result as text
        node = rounded(node)  # ``f(data).round(3)``: the result to the digits shown
        inner = unwrapped(node) if wrapper is None else None
        if inner is not None:  # ``list(f(x))``: the call, its result made a list
            node, wrapper = inner
        called = isinstance(node, ast.Call) and _calls(node, func, namespace, names, guide, state)
        if not called:
            return None
        bound = _arguments(node, signature, namespace, package, values, source, 0, state, classes)
        if bound is None:
            return None
        arguments, steps, held, exact = bound
        if (
            not (steps or held or (guide and inlined(node)))
            or not set(arguments) | {s["into"] for s in steps if "into" in s} <= exposed
        ):
            return None  # literal calls alone: examples.examples_for (usage.py) has them
        item = example_item(arguments, wrapper, want if exact else "", None)
        if item is None:
            return None
        item["session"], item["_exact"] = steps, exact
        if held:  # the class each such parameter takes (members pops it)
            item["_held"] = held
        if item["has_expected"] and exact is True:
            item["line"] = source
        elif item["has_expected"]:  # and the same call without it, should the line matter
            item["_unproven"] = dict(item, expected=None, has_expected=False, wrapper=wrapper)
        return item

    held = {}  # a name holding an example's result -> (that example, its item's place)
    for example, statement in session_statements(doc, namespace):
        if len(found) >= MAX_EXAMPLES:
            break
        source = example.source.strip()
        stated, shown_example = stated_line(statement, example)
        shown = held_name(stated, held)
        if shown is not None:  # ``line1, line2 = export_tle(sat)`` before, and now ``line1``
            _show(*shown, shown_example)
            continue
        for name in changed_names(statement):
            held.pop(name, None)
        setting = assignment(statement)
        if setting and not example.exc_msg and _assigned(setting, builders, values, state, source):
            continue  # ``net.cap = 3``: a setup step of the built value ``net``
        if isinstance(statement, ast.Assign):
            # ``resp = frequency_response(sys)``: a call of ours whose result is kept, not
            # shown; then the name holds what the line built (or nothing we can replay).
            item = example_of(statement.value, "", source)
            _hold(statement, item, held)
            step = None
            if len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                step = _build(statement.value, namespace, package, values, source)
            unpacked = unpacked_names(statement)
            parts = (
                _build(statement.value, namespace, package, values, source) if unpacked else None
            )
            derived = step is None and any(
                isinstance(n, ast.Name) and n.id in values for n in ast.walk(statement.value)
            )
            for target in statement.targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        values.pop(node.id, None)
                        state["setups"].pop(node.id, None)
                        builders.pop(node.id, None)
                        state["assigned"].add(node.id)
                        state["derived"].discard(node.id)
                        state["changed"].discard(node.id)
                        state["symbols"].pop(node.id, None)
                        if derived:  # ``total = u + 2*v``: a value we do not follow
                            state["derived"].add(node.id)
            state["symbols"].update(plain_symbols(statement, lambda n: resolve(n, namespace)))
            if step is None and isinstance(statement.targets[0], ast.Name):
                text = symbol_text(statement.value, state["symbols"], namespace, state["assigned"])
                if len(statement.targets) == 1 and text is not None:  # ``f = x**2 + 1``
                    state["symbols"][statement.targets[0].id] = text
            if step is not None:
                values[statement.targets[0].id] = step
                builders[statement.targets[0].id] = resolve(statement.value.func, namespace)
            if parts is not None:  # ``cA, cD = dwt(x, "db2")``: each name, one item of it
                for place, name in enumerate(unpacked):
                    if name not in state["symbols"]:  # ``a, b = symbols("a b")``: text
                        values[name] = dict(parts, part=place)
        elif isinstance(statement, ast.Expr) and not example.exc_msg:
            item = example_of(statement.value, example.want.strip(), source)
            if not _set_up(statement.value, builders, state, source):
                state["changed"] |= _touched(statement.value, values)
        else:  # ``for sys in systems:``, ``def f(): ...``: names bound, by what we do not follow
            state["changed"] |= _touched(statement, values)
            state["assigned"] |= {
                n.id
                for n in ast.walk(statement)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                state["assigned"].add(statement.name)
            continue
        if item is not None:
            found.append(item)
    # The same calls with no value to expect, after all others: for when the line the
    # replay does not repeat mattered (beyond the budget, which counts the calls).
    found += [e.pop("_unproven") for e in list(found) if "_unproven" in e]
    for item in found:
        item.pop("_exact", None)
    found.sort(key=shown_first)
    return found


def _hold(statement, item, held):
    """Hold the names an assignment binds to the result of ``item``'s call (each name its
    item's place when the line unpacks it), for a later line that shows one; a name bound
    anew holds nothing of before."""
    for target in statement.targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                held.pop(node.id, None)
    if item is None:
        hold_items(statement, held)  # ``cA, (cH, cV, cD) = coeffs``: items of a held result
        return
    if item["has_expected"] or len(statement.targets) != 1:
        return
    hold_names(statement.targets[0], item, held)


def _show(item, part, attribute, printed, reads, example):
    """What a line shows of a held result (``line1``, ``res.nobs``) as ``item``'s expected
    value, at that place or of that attribute, when its arguments are the ones the session
    built (exactly, or ``STALE``: then with the same call unproven after it). Never the
    repository's own line: the value comes from a later one."""
    exact = item.get("_exact")
    if item["has_expected"] or exact not in (True, STALE):
        return
    value = held_value(item["arguments"], printed, example)
    if value is None or not value["has_expected"]:
        return
    if exact is STALE:
        item["_unproven"] = {k: v for k, v in item.items() if k != "_exact"}
    item.update(expected=value["expected"], has_expected=True, wrapper=value["wrapper"], part=part)
    if "tolerance" in value:  # numbers an ELLIPSIS cut (tables.truncated_numbers)
        item["tolerance"] = value["tolerance"]
    if attribute is not None:
        item["attribute"] = attribute
    if reads:
        item["reads"] = reads


def unpacked_names(statement):
    """The names ``a, b = ...`` binds, in order, when its one target is a tuple or list of
    plain names (no starred one, no attribute); else None."""
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], (ast.Tuple, ast.List)):
        return None
    names = [e.id if isinstance(e, ast.Name) else None for e in statement.targets[0].elts]
    return names if names and None not in names and len(set(names)) == len(names) else None


def session_state(assigned=()):
    """What a reading of a session follows: the names it bound (``assigned``), those bound
    to sums of built values (``derived``), built values a later line may have changed,
    each built value's setup calls, and the plain SymPy symbols it made (symbols)."""
    return {
        "assigned": set(assigned),
        "derived": set(),
        "changed": set(),
        "setups": {},
        "symbols": {},
    }


def _set_up(node, builders, state, source):
    """Whether ``node`` is a setup call of a built value (``G.add_edge("A", "B")``): a
    plain method of the class that built it, with literal arguments its tool takes (none
    in ``**kwargs``, which no tool exposes); then it is recorded as
    that value's next setup step (named by the class's ``_id`` until script names it)."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
    ):
        return False
    name, member = node.func.value.id, node.func.attr
    cls = builders.get(name)
    if not inspect.isclass(cls) or name in state["changed"]:
        return False
    steps = setup_step(cls, "", member, node, state["setups"].get(name, []), source)
    if steps is None:  # not a plain method, or not literal arguments: a change we lose
        return False
    step = steps[-1]
    # ``G.add_edge("A", "B", weight=4)``: a tool hides ``**attr``, so no call repeats it.
    hidden = {
        p.name for p in method_signature(cls, member).parameters.values() if p.kind is p.VAR_KEYWORD
    }
    if hidden & set(step["arguments"]):
        return False
    del step["target"]
    step["_id"] = id(cls)
    state["setups"][name] = steps
    return True


def _assigned(setting, builders, values, state, source):
    """Whether ``setting`` (``net.cap = 3``) assigns a literal to a value a class built and
    nothing since changed otherwise: then it is recorded as that value's next setup step,
    replayed through the class's setter tool (assign.py)."""
    name, attribute, node = setting
    cls, value = builders.get(name), literal(node)
    if not inspect.isclass(cls) or name not in values or name in state["changed"] or not value:
        return False
    built = [values[name], *state["setups"].get(name, [])]
    steps = assigned(cls, built, attribute, value, source, {"_id": id(cls)})
    if steps is None:
        return False
    state["setups"][name] = steps[1:]
    return True


def _with_setups(value, into, item=None, at=0):
    """The steps that build ``value`` into parameter ``into`` and set it up: the builder,
    then its setup calls, each ``on`` the builder's index ``at`` in the session."""
    built = dict(value.step, into=into) if item is None else dict(value.step, into=into, item=item)
    return [built, *(dict(s, on=at) for s in value.setups)]


def _calls(node, func, namespace, names, guide, state):
    root = node.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if root is not node.func and isinstance(root, ast.Name) and root.id in state["assigned"]:
        return False  # ``e.series(x, 0)``: a method of a value the session made, not ours
    resolved = resolve(node.func, namespace)
    if resolved is not None:  # a class method is bound anew at each access: equal, not same
        return resolved is func or (inspect.ismethod(func) and resolved == func)
    return not guide and isinstance(node.func, ast.Name) and node.func.id in names


def _build(node, namespace, package, values, source):
    """The step that builds a value: a call of a callable of the package with literal
    arguments; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    callable_ = resolve(node.func, namespace)
    if isinstance(node.func, ast.Attribute) and (
        not callable(callable_) or inspect.ismethoddescriptor(callable_)
    ):  # a class method read from the class's namespace: bound to the class it names
        cls = resolve(node.func.value, namespace)
        callable_ = getattr(cls, node.func.attr, None) if inspect.isclass(cls) else None
    # ``Satrec.twoline2rv(s, t)``, ``Table.read(path)``: a class method of the package's
    # class builds its instance; script names the step by the class's target and the name.
    owner = getattr(callable_, "__self__", None)
    factory = inspect.isclass(owner) and _own(owner, package)
    if callable_ is None or not (factory or _own(callable_, package)):
        return None
    try:
        signature = inspect.signature(callable_)
    except (TypeError, ValueError):  # compiled: its docstring's signature, or the guides'
        # (a class method, ``Satrec.twoline2rv``, or a class, ``Wavelet(name, filter_bank=
        # None) object describes...``: ``db1 = pywt.Wavelet('db1')`` in a test)
        spelled = getattr(callable_, "__name__", "")
        compiled = factory or inspect.isclass(callable_)
        signature = text_signature(callable_, spelled) if compiled else None
        if signature is None and compiled:
            signature = guide_signature(spelled)
        if signature is None:
            return None
    bound = _arguments(node, signature, namespace, package, {}, source, depth=1)
    if bound is None or bound[1] or not bound[3]:
        return None
    step = {"line": source, "_id": id(callable_), "member": None, "arguments": bound[0]}
    if factory:
        step.update(_id=id(owner), factory=callable_.__name__)
    return step


def _own(obj, package):
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)):
        return False
    return (getattr(obj, "__module__", "") or "").partition(".")[0] == package


def _arguments(
    node, signature, namespace, package, values, source, depth=0, state=None, classes=None
):
    """(literal arguments by name, steps whose results fill the others, the class of each
    argument that is a class's own instance, whether the call is the line's own) for
    ``node``'s call bound to ``signature``; None when an argument is none of these.

    ``state`` (the session's assigned and derived names) lets a list of built values and a
    name the session never bound be arguments; ``classes`` is each parameter's class."""
    if any(k.arg is None for k in node.keywords) or any(
        isinstance(a, ast.Starred) for a in node.args
    ):
        return None
    try:
        args = [_value(a, namespace, package, values, source, depth, state) for a in node.args]
        kwargs = {
            k.arg: _value(k.value, namespace, package, values, source, depth, state)
            for k in node.keywords
        }
        bound = signature.bind(*args, **kwargs)
    except (_NotValue, TypeError):
        return None
    arguments, steps, held, exact = {}, [], {}, True
    for name, value in bound.arguments.items():
        if isinstance(value, _Built) and value.text and _parses_text((classes or {}).get(name)):
            arguments[name], held[name] = value.text, symbol_class()  # ``x``: "x"
            continue
        if isinstance(value, _Text):  # the parameter is typed by it (schemas.typed_by_examples)
            arguments[name], held[name] = value.text, symbol_class()
            continue
        if isinstance(value, _Built):
            steps += _with_setups(value, name, at=len(steps))
            exact = _least(exact, value.exact or STALE)
            continue
        if isinstance(value, _Items):  # ``covariance_matrix([u, v])``: the list, item by item
            steps += [dict(step, into=name, item=i) for i, step in enumerate(value.steps)]
            exact = _least(exact, value.exact)
            continue
        if isinstance(value, _Unbound):
            cls = (classes or {}).get(name)
            if cls is None:
                return None  # an object of no class we know: nothing builds it
            line = f"{value.name} = {cls.__name__}(...)"
            steps.append(
                {"line": line, "_id": id(cls), "member": None, "arguments": {}, "typed": True}
                | {"into": name}
            )
            exact = False  # the documented output came from an object we do not have
            continue
        if isinstance(value, _Held):
            arguments[name], held[name] = {"attribute": value.name}, value.cls
            continue
        if isinstance(value, StdlibValue):  # ``datetime(2019, 1, 14)``: its ISO text
            arguments[name], held[name] = value.json, value.cls
            continue
        kind = signature.parameters[name].kind
        if (
            kind is inspect.Parameter.VAR_POSITIONAL
            and value
            and all(isinstance(v, _Built) for v in value)
        ):  # ``sqrt(ufloat(0, 1))`` with ``sqrt(*args)``: items of the list, in order
            for i, v in enumerate(value):
                steps += _with_setups(v, name, i, len(steps))
            exact = _least(exact, all(v.exact for v in value) or STALE)
            continue
        try:
            arguments[name] = json_safe(value)
        except Unsupported:
            return None  # a placeholder inside *args or a container: not replayable
    return arguments, steps, held, exact


STALE = "stale"
"""An argument built as the session first built it, which a later line the replay does not
repeat may have changed (``satellite.sgp4(jd, fr)``, then ``sat_epoch_datetime(satellite)``):
its documented output is expected, as what validation compares, never as the repository's
own line (no replay of it can blame the repository)."""


def _least(exact, other):
    """The lesser of two exactnesses: True, then ``STALE``, then False."""
    order = {True: 2, STALE: 1, False: 0}
    return exact if order[exact] <= order[other] else other


def _parses_text(cls):
    """Whether a parameter of class ``cls`` takes the ``sympy`` codec's text."""
    try:
        return cls is not None and class_schema(cls)[1] == TEXT_CODEC
    except Unsupported:
        return False


class _NotValue(Exception):
    pass


def _value(node, namespace, package, values, source, depth, state=None):
    if isinstance(node, ast.Name) and node.id in values:
        if state is None:
            return _Built(values[node.id])
        setups = state["setups"].get(node.id, ())
        text = state["symbols"].get(node.id)
        return _Built(values[node.id], node.id not in state["changed"], setups, text)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        pass
    held = _held(node, namespace, package)
    if held is not None:
        return held
    typed = stdlib_value(node, lambda callee: resolve(callee, namespace))
    if typed is not None:
        return typed
    if state is not None:
        text = symbol_text(node, state["symbols"], namespace, state["assigned"])
        if text is not None:
            return _Text(text)
    if depth == 0:
        step = _build(node, namespace, package, values, source)
        if step is not None:
            return _Built(step)
    if depth == 0 and state is not None:
        if isinstance(node, (ast.List, ast.Tuple)):
            build = functools.partial(
                _build, namespace=namespace, package=package, values=values, source=source
            )
            return _items(node, values, state, build)
        if (
            isinstance(node, ast.Name)
            and node.id not in state["assigned"]
            and resolve(node, namespace) is None
        ):
            return _Unbound(node.id)
    raise _NotValue


def _items(node, values, state, build):
    """``[u, v, total]``: the steps that built ``u`` and ``v``, in order, and of an item
    built on the line itself (``[u, Point(1, 1)]``: ``build(item)``); an item bound to an
    expression of built values is left out; any other item makes no argument."""
    steps, exact = [], True
    for item in node.elts:
        name = item.id if isinstance(item, ast.Name) else None
        inline = build(item) if isinstance(item, ast.Call) else None
        if inline is not None:
            steps.append(inline)
        elif name in values:
            steps.append(values[name])
            # An item's setup calls are not replayed in a list: its output is not ours.
            exact = exact and name not in state["changed"] and not state["setups"].get(name)
        elif name in state["derived"]:
            exact = False
        else:
            raise _NotValue
    if not steps:
        raise _NotValue
    return _Items(steps, exact)


def _touched(node, values):
    """The built values that ``node`` may change: a method called on one (``G.add_edge(1,
    2)``), one passed to a call (``relabel(G)``), an attribute or item of one set. Their
    steps rebuild them as first built, so a later call on them is no exact replay of the
    repository's example (its output is not ours to expect)."""
    touched = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            receiver = inner.func.value if isinstance(inner.func, ast.Attribute) else None
            for given in [receiver, *inner.args, *(k.value for k in inner.keywords)]:
                if isinstance(given, ast.Name) and given.id in values:
                    touched.add(given.id)
        elif stored_base(inner) in values:
            touched.add(stored_base(inner))
    return touched


def _parameter_classes(func, signature, module, package):
    """The package's class each parameter takes, by its annotation or its docstring type
    (``sys : StateSpace``), else, for a required one neither types, by the class the guides'
    variable of its name always holds (guides); parameters naming none are absent."""
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # an annotation that does not resolve: the docstring may still say
        hints = {}
    types = parameter_types(inspect.getdoc(func) or "")
    found = {}
    for name in signature.parameters:
        cls = hints.get(name)
        if not (inspect.isclass(cls) and _own(cls, package)):
            cls = documented_type(types.get(name), module)
        if cls is None and name not in hints and name not in types:
            required = signature.parameters[name].default is inspect.Parameter.empty
            cls = variable_class(name, package) if required else None  # guides
        if inspect.isclass(cls) and _own(cls, package):
            found[name] = cls
    return found


def _held(node, namespace, package):
    """``Cls.NAME`` where ``Cls`` is a class of the package and ``Cls.NAME`` one of its
    instances (``Geodesic.WGS84``), or an instance a module of the package holds (``USD``:
    held.py), as a ``_Held``; None for anything else."""
    owner = resolve(node.value, namespace) if isinstance(node, ast.Attribute) else None
    if not (inspect.isclass(owner) and _own(owner, package)):
        found = module_held(node, namespace, package)
        return _Held(*found) if found is not None else None
    if node.attr.startswith("_"):
        return None
    value = resolve(node, namespace)
    return _Held(owner, node.attr) if isinstance(value, owner) else None


def object_arguments(call, signature, exposed, namespace, known, source, at):
    """(literal arguments, the steps that build the others, each ``into`` its parameter,
    the class of each argument that is a class's own instance) for a method's ``call``
    whose arguments are literals or objects the session built (``known``: variable -> its
    steps) or builds inline; None when one is anything else, or when no object is among
    them. ``at``: how many steps (the receiver's) come before these."""
    values = {name: step for name, step in map(_single, known.items()) if step is not None}
    package = getattr(namespace.get(PACKAGE), "__name__", None)
    if package is None:
        return None
    # A list of such objects (``total.add_all([a, Version(2, 0)])``) is one step per item.
    state = session_state(known)
    bound = _arguments(call, signature, namespace, package, values, source, 0, state)
    if bound is None:
        return None
    arguments, steps, held, _ = bound
    given = set(arguments) | {s["into"] for s in steps if "into" in s}
    if not (steps or held) or not given <= exposed or at + len(steps) > MAX_STEPS:
        return None
    # A setup step of an argument (``on``) counts its builder's index in the whole session.
    steps = [dict(s, on=s["on"] + at) if s.get("on") is not None else s for s in steps]
    return arguments, steps, held


def _single(entry):
    """(variable, the one step that built it) when one call of a builder did, with no
    object among its arguments and no setup since; (variable, None) otherwise."""
    name, steps = entry
    if not steps or len(steps) != 1:
        return name, None
    step = steps[0]
    if any(step.get(key) for key in ("member", "takes", "attribute", "chained", "assign")):
        return name, None
    return name, {k: v for k, v in step.items() if k != "into"}
