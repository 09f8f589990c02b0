"""Probe helper (runs INSIDE the target environment; standard library only): a method's
examples read from a docstring's ``>>>`` lines as one session.

A method's documented output belongs to the receiver the session built: ``g = Grid("A1")``
then ``g.code()`` -> ``4328`` is a call of ``Grid.code`` on ``Grid("A1")``, and
``acc = Tally(); acc.add(1); acc.add(5); acc.total()`` -> ``6`` a call of ``Tally.total``
after those two setup calls. Each example carries the lines that build and set up its
receiver (the session), so validation replays them through their own tools; the expected
value binds only to the line that printed it. A class attribute that holds an instance
(``Geodesic.WGS84``) is a receiver too, as is an instance a module of the package holds
(periodictable's ``elements``, a ``PeriodicTable``: ``periodictable.elements.symbol('Fe')``),
and so is what a method returns when its signature
says it returns the class (a chain: ``noon().later(90).label()``, a ``chained`` step). A
call on a receiver the session did not build (or one it cannot replay) yields arguments,
never an expected value.
"""

import ast
import functools
import inspect
import sys

from .assign import assignment, set_up
from .built_arguments import object_arguments, unpacked_names
from .built_objects import MAX_STEPS, bound_objects, changed, passed
from .doctest_lines import MAX_EXAMPLES, literal_arguments, unwrapped
from .examples import (
    example_item,
    held_name,
    held_value,
    note_arrays,
    shown_first,
    stated_line,
)
from .guide_signatures import guide_signature
from .held import held_arguments, held_by_name, written_name
from .readers import reads_only_arguments
from .returns import (
    class_factory,
    factory_of,
    kept_as_handle,
    returned_class,
    returns_owner,
    returns_self,
)
from .session_names import PACKAGE, resolve
from .session_reading import session_statements
from .setup_steps import method_signature, setup_step
from .signatures import text_signature
from .text import reads_only, shown_as_text


def method_examples(owner, owner_target, method, doc, signature, exposed, built_only=False):
    """Examples of ``owner.method`` from the ``>>>`` sessions of ``doc``.

    ``signature`` is the method's without its receiver; ``exposed`` the tool's parameters.
    With ``built_only`` (a README's sessions, which call many objects' methods), only calls
    on a receiver the session built count: another object's ``get`` says nothing of ours.
    """
    namespace = _namespace(owner)
    is_class = lambda func: inspect.isclass(resolve(func, namespace))  # noqa: E731
    receivers = {}  # variable -> the steps that built and set it up; None: not replayable
    objects = {}  # variable -> the steps that built another object of the package
    classes = {}  # such a variable -> its class, when a constructor built it
    bound = {}  # ``compare = engine().compare``: name -> (receiver variable, method name)
    stale = set()  # such variables a line changed since (``span.grow(2)``): no arguments
    given = set()  # those the previous line passed to a method (``x.feed(acc)``)
    found = []
    pending = {}  # a name holding an example's result -> (that example, its item's place)
    for example, statement in session_statements(doc, namespace, until=method):
        if len(found) >= MAX_EXAMPLES:
            break
        if _show_pending(statement, example, pending):
            continue
        # ``x.feed(acc)`` may have changed ``acc``: no later replay of it, nor argument
        stale |= given & objects.keys()
        receivers.update(dict.fromkeys(given & receivers.keys()))
        given = passed(statement, objects.keys() | receivers.keys(), is_class)
        source = example.source.strip()
        assigned = None
        prior = None  # ``kf = kf.em(X)``: the receiver the name held before the line rebinds it
        looped = isinstance(statement, ast.For) and _method_call(statement.iter)
        if looped:
            # ``for eq in game.support_enumeration(): print(eq)``: a call whose results the
            # loop shows, one by one (its output is the loop's, not the call's value); what
            # the loop's body does to a receiver, it does after the call.
            for part in (statement.target, *statement.body, *statement.orelse):
                _forget(part, receivers)
            statement = ast.Expr(value=statement.iter)
        setting = assignment(statement)
        if setting is not None and not example.exc_msg:  # ``m.scale = Scale(2)``: a setup
            built = (receivers, objects, classes)
            set_up(setting, owner, owner_target, built, _built_object, namespace, source)
            continue
        changed(statement, objects, stale)  # ``span.grow(2)``: no step replays it
        unpacked = unpacked_names(statement) if isinstance(statement, ast.Assign) else None
        if unpacked is not None:
            # ``signal, bkps = pw_constant(1000, 3, 4)``: each name one item of the result,
            # an object a later line may pass (``Pelt(model="rbf").fit(signal)``).
            known = {k: v for k, v in objects.items() if k not in stale}
            built = _built_object(statement.value, namespace, source, known)
            for place, name in enumerate(unpacked):
                receivers.pop(name, None)
                bound.pop(name, None)
                stale.discard(name)
                objects.pop(name, None)
                if built is not None and len(built) == 1:
                    objects[name] = [dict(built[0], part=place)]
            if built is not None or not _method_call(statement.value):
                continue
            # ``X, Z = model.sample(100)``: a call on a receiver the session built, whose
            # result the line unpacks: an example without an output, as an assigned call is.
            assigned = _UNPACKED
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            name = statement.targets[0].id
            prior = receivers.get(name)
            bound.pop(name, None)
            method_of = _bound_method(
                statement.value, owner, owner_target, namespace, receivers, source
            )
            if method_of is not None:  # the object behind it lives on: a receiver of its own
                key, steps, member = method_of
                receivers.setdefault(key, steps)
                bound[name] = (key, member)
                continue
            known = {k: v for k, v in objects.items() if k not in stale}
            known.update((k, v) for k, v in receivers.items() if v is not None)
            receivers[name] = _construction(
                statement.value, owner, owner_target, namespace, source, known
            )
            objects.pop(name, None)
            classes.pop(name, None)
            if receivers[name] is None:  # ``sys = rss(4, 2, 1)``: maybe an argument later
                built = _built_object(statement.value, namespace, source, known)
                if built is not None:
                    objects[name] = built
                    builder = resolve(statement.value.func, namespace)
                    if inspect.isclass(builder):
                        classes[name] = builder
            if receivers[name] is not None or not _method_call(statement.value):
                continue
            # ``patch = Point(0, 0).buffer(10)``: a call of ``buffer`` on a receiver the
            # session built, whose result (another object) is no receiver of ours.
            assigned = name
        elif not isinstance(statement, ast.Expr):
            _forget(statement, receivers)
            continue
        elif reads_only(statement.value):
            continue  # ``acc``, ``acc.size``, ``len(acc)``: shown, not changed
        # ``str(v.next_version("minor"))``, ``print(...)``: the call, its result as text
        node, wrapper, shown_want = shown_as_text(statement.value, example.want)
        inner = unwrapped(node) if wrapper is None else None
        if inner is not None:  # ``list(f(x))``: the call, its result made a list
            node, wrapper = inner
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in bound:
            key, member = bound[node.func.id]  # compare("egg", "eggs"): a call of that method
            method_call = ast.Attribute(value=ast.Name(id=key, ctx=ast.Load()), attr=member)
            node = ast.Call(func=method_call, args=node.args, keywords=node.keywords)
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            # ``sat_epoch_datetime(satellite)``: a function that only reads what it is
            # given leaves the receiver as it was (readers.py); any other use may change it
            if not (
                isinstance(node, ast.Call)
                and reads_only_arguments(resolve(node.func, namespace), node, receivers.keys())
            ):
                _forget(statement, receivers)
            continue
        name, target = node.func.attr, node.func.value
        variable = target.id if isinstance(target, ast.Name) else None
        if variable is not None and variable == assigned and prior is not None:
            steps = prior  # the call ran on what the name held before this line rebound it
        elif variable is not None and variable in receivers:
            steps = receivers[variable]
        elif variable is None:  # ``Grid("A1").code()``: built on the line itself
            known = {k: v for k, v in objects.items() if k not in stale}
            steps = _receiver(target, owner, owner_target, namespace, receivers, source, known)
        elif variable not in objects:  # ``elements.symbol("Fe")``: an instance a module holds
            steps = held_receiver(target, owner, owner_target, namespace, source)
        else:
            steps = None  # another object of the package: not one of ours
        if name == method:
            arguments, built, held = literal_arguments(node, signature, exposed), [], {}
            if arguments is None and steps is not None:  # ``a.is_compatible(b)``: objects
                known = [*objects.items(), *receivers.items()]
                known = {k: v for k, v in known if v is not None and k not in stale}
                arguments, built, held = object_arguments(
                    node, signature, exposed, namespace, known, source, len(steps)
                ) or (None, [], {})
            if arguments is None:
                _forget(statement, receivers)
                continue
            shown = steps is not None and assigned is None and not looped
            want = shown_want.strip() if shown else ""
            item = example_item(arguments, wrapper, want, example.exc_msg)
            if item is not None:  # ``sat.sgp4_array(jd, fr)``: numpy's arrays again
                note_arrays(item, node, signature)
            if item is not None and (steps is not None or not built_only):
                if steps is not None:
                    item["session"] = [dict(step) for step in steps] + built
                    if held:  # the class each such argument is an instance of
                        item["_held"] = held
                    if item["has_expected"]:
                        item["line"] = source
                    _hold(statement, assigned, item, pending)
                found.append(item)
        if (
            variable is not None
            and variable in receivers
            and steps is not None
            and not example.exc_msg  # a line that raises is shown, not replayed
        ):
            # The call may change the receiver: later lines see it, so their replay does too.
            known = {k: v for k, v in objects.items() if k not in stale}
            receivers[variable] = _setup(
                owner, owner_target, name, node, steps, source, namespace, known
            )
        if assigned not in (None, _UNPACKED):  # the result: an owner (a chain), or another object
            known = {k: v for k, v in objects.items() if k not in stale}
            receivers[assigned] = (
                _chained(owner, owner_target, name, node, steps, source, namespace, known)
                if steps is not None and not example.exc_msg
                else None
            )
    found.sort(key=shown_first)
    return found


_UNPACKED = "<unpacked>"  # ``assigned`` for a call whose result a line unpacks: no variable


def _hold(statement, assigned, item, pending):
    """Remember the names a line bound the example's result to (``e, r, v =
    sat.sgp4(jd, fr)``: each its item's place), so that a later line showing one of them
    (``e``, then ``0``) gives the example its expected value."""
    if assigned == _UNPACKED:
        for place, name in enumerate(unpacked_names(statement) or []):
            pending[name] = (item, place)
    elif assigned is not None:
        pending[assigned] = (item, None)


def _show_pending(statement, example, pending):
    """Whether the line shows a name that holds an example's result: then its output is
    that example's expected value (of the item at its place, or of the attribute it reads:
    ``res = model.fit(y)`` then ``res.nobs``), unless it has one. A line that binds or may
    change such a name ends what it holds. ``sst.shape == (264,)`` shown ``True`` shows
    ``sst.shape`` as that literal (``examples.stated_line``)."""
    statement, example = stated_line(statement, example)
    held = held_name(statement, pending)
    if held is not None:
        item, part, attribute, printed, reads = held
        shown = held_value(item["arguments"], printed, example)
        if shown is not None and shown["has_expected"] and not item["has_expected"]:
            item.update(
                expected=shown["expected"],
                wrapper=shown["wrapper"],
                has_expected=True,
                part=part,
            )
            if "tolerance" in shown:  # numbers an ELLIPSIS cut (tables.truncated_numbers)
                item["tolerance"] = shown["tolerance"]
            if attribute is not None:
                item["attribute"] = attribute
            if reads:
                item["reads"] = reads
        return True
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            pending.pop(node.id, None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if isinstance(node.func.value, ast.Name):  # ``r.sort()``: r may change
                pending.pop(node.func.value.id, None)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                pending.pop(node.value.id, None)
    return False


def _method_call(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)


def held_receiver(node, owner, owner_target, namespace, source):
    """[the step that names an instance of ``owner`` that the class (``Geodesic.WGS84``)
    or a module of the package (``periodictable.elements``, or ``elements`` imported from
    it) holds], when the name decodes to that very object as runtime/decode.py decodes
    ``{"attribute": name}`` (``held.held_by_name``); None otherwise."""
    name = written_name(node)
    if name is None:
        return None
    value = resolve(node, namespace)
    if not isinstance(value, owner) or held_by_name(name, owner) is not value:
        return None
    step = {"line": source, "target": f"{owner_target}.{name}", "member": None}
    return [dict(step, arguments={}, attribute=name)]


def _namespace(owner):
    """The names a doctest of ``owner`` sees: its module's globals and the package's."""
    module = sys.modules.get(getattr(owner, "__module__", "") or "")
    names = dict(vars(module)) if module is not None else {}
    package = (getattr(owner, "__module__", "") or "").partition(".")[0]
    if package in sys.modules:
        names.setdefault(package, sys.modules[package])
        names[PACKAGE] = sys.modules[package]
    return names


def _construction(node, owner, owner_target, namespace, source, receivers=None):
    """[the step that builds an ``owner``] when ``node`` calls its constructor with
    literals, or names an instance the class (``Geodesic.WGS84``) or a module of the package
    (``held_receiver``) holds; None otherwise (a receiver this session cannot replay through
    tools).

    With ``receivers`` (an assignment's value), an argument may be an object the session
    built (``resp = frequency_response(sys)``): that object's steps come first, and the
    step ``takes`` what they left."""
    if not isinstance(node, ast.Call):
        return held_receiver(node, owner, owner_target, namespace, source)
    builder = resolve(node.func, namespace)
    factory = builder is not owner and factory_of(builder, owner)
    if builder is not owner and not factory:
        return None
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):  # a C extension's class: its docstring's first line
        spelled = getattr(builder, "__name__", "")
        signature = text_signature(builder, spelled)
        if signature is None and factory:  # ``Satrec.twoline2rv(s, t)``: what guides pass
            signature = guide_signature(spelled)
        if signature is None:
            return None
    exposed = {p.name for p in signature.parameters.values()}
    arguments = literal_arguments(node, signature, exposed)
    if arguments is None:  # ``Money('19.50', USD)``: an instance a module holds, by name
        package = getattr(namespace.get(PACKAGE), "__name__", None)
        arguments = held_arguments(node, signature, exposed, namespace, package)
    earlier, takes = [], {}
    if arguments is None:  # ``Array(FixedMount(30, 90))``: objects built before it, or inline
        known = receivers or {}
        build = functools.partial(_built_object, namespace=namespace, source=source, known=known)
        found = bound_objects(node, signature, exposed, known, build)
        if found is None:
            return None
        arguments, earlier, takes = found
    if arguments is None:
        return None
    if factory and not kept_as_handle(owner):
        return None
    step = {"line": source, "target": owner_target, "member": None, "arguments": arguments}
    if takes:
        step["takes"] = takes
    if factory and class_factory(builder, owner):
        step["target"] = f"{owner_target}.{builder.__name__}"
    elif factory:  # script names it by the target the probe lists the function under
        del step["target"]
        step["_id"] = id(builder)
    return [*earlier, step]


def _built_object(node, namespace, source, known):
    """The steps that build an object of the package other than the receiver's class, for
    a later construction's argument (``sys = rss(4, 2, 1)``, then
    ``resp = frequency_response(sys)``): a class's constructor or a function of the package
    (whose result, unless its annotation names a class kept as a handle, is a guess: a
    wrong one fails our replay, never the repository's verdict), with literal arguments or
    objects built before. None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    builder = resolve(node.func, namespace)
    package = getattr(namespace.get(PACKAGE), "__name__", None)
    if package is None or (getattr(builder, "__module__", "") or "").partition(".")[0] != package:
        return None
    if not inspect.isclass(builder):
        if not inspect.isfunction(builder):
            return None
        returned = returned_class(builder)
        if returned is not None and not isinstance(returned, str):
            if not (inspect.isclass(returned) and kept_as_handle(returned)):
                return None
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):
        return None
    exposed = {p.name for p in signature.parameters.values()}
    arguments, earlier, takes = literal_arguments(node, signature, exposed), [], {}
    if arguments is None:
        build = functools.partial(_built_object, namespace=namespace, source=source, known=known)
        found = bound_objects(node, signature, exposed, known, build)
        if found is None:
            return None
        arguments, earlier, takes = found
    step = {"line": source, "_id": id(builder), "member": None, "arguments": arguments}
    if takes:
        step["takes"] = takes
    return [*earlier, step]


def _receiver(node, owner, owner_target, namespace, receivers, source, objects=None):
    """The steps that build the receiver ``node`` writes on a line: a variable the session
    built, a construction (which may take ``objects``, other objects the session built, or
    receivers), or a call on one of those whose result is an ``owner`` (a chain:
    ``now("Europe/Paris").add(days=1)``); None when it is none of them."""
    if isinstance(node, ast.Name):
        return receivers.get(node.id)
    known = {**(objects or {}), **{k: v for k, v in receivers.items() if v is not None}}
    steps = _construction(node, owner, owner_target, namespace, source, known)
    if steps is not None or not _method_call(node):
        return steps
    inner = _receiver(node.func.value, owner, owner_target, namespace, receivers, source, objects)
    if inner is None:
        return None
    return _chained(owner, owner_target, node.func.attr, node, inner, source, namespace, objects)


def _setup(owner, owner_target, name, call, steps, source, namespace, known):
    """``setup_step``, or when the call's arguments are objects the session built
    (``algo.fit(signal)`` after ``signal, bkps = pw_constant(1000, 3, 4)``): the steps that
    build them, each ``into`` its parameter and ``feeds`` the setup step's index, then the
    setup step; None when it is neither."""
    found = setup_step(owner, owner_target, name, call, steps, source)
    if found is not None or not known:
        return found
    signature = method_signature(owner, name)
    if signature is None or name.startswith("_"):
        return None
    parameters = list(signature.parameters.values())[1:]
    signature = signature.replace(parameters=parameters)
    exposed = {p.name for p in parameters}
    built = object_arguments(call, signature, exposed, namespace, known, source, len(steps))
    if built is None:
        return None
    arguments, earlier, held = built
    if held or any(s.get("item") is not None for s in earlier):
        return None  # a class's own instance or a list of objects: not fed to a setup
    if len(steps) + len(earlier) + 1 > MAX_STEPS:
        return None
    at = len(steps) + len(earlier)
    earlier = [dict(s, feeds=at) if "into" in s else s for s in earlier]
    step = {"line": source, "target": f"{owner_target}.{name}", "member": name}
    return [*steps, *earlier, dict(step, arguments=arguments)]


def _chained(owner, owner_target, name, call, steps, source, namespace=None, known=None):
    """``steps`` and a call of ``owner.name`` whose result is the receiver from then on
    (``chained``), when its signature says it returns an ``owner``; None otherwise. A
    method that returns ``self`` (``StandardScaler().fit(X).transform(X)``; read from its
    source, whatever it is annotated) sets its receiver up in place: a plain setup step,
    whatever its tool returns. Either may take objects the session built (``_setup``)."""
    signature = method_signature(owner, name)
    if signature is None:
        return None
    if returns_self(owner, name):  # its source says so, whatever its annotation
        return _setup(owner, owner_target, name, call, steps, source, namespace, known or {})
    if not returns_owner(signature.return_annotation, owner):
        return None
    if not kept_as_handle(owner):
        return None
    steps = _setup(owner, owner_target, name, call, steps, source, namespace, known or {})
    if steps is None:
        return None
    return [*steps[:-1], dict(steps[-1], chained=True)]


def _bound_method(node, owner, owner_target, namespace, receivers, source):
    """(receiver variable, its steps, method name) when ``node`` is a method of a receiver
    the session built (``engine().compare``, ``acc.add``); None otherwise."""
    if not isinstance(node, ast.Attribute) or node.attr.startswith("_"):
        return None
    if method_signature(owner, node.attr) is None:
        return None
    target = node.value
    if isinstance(target, ast.Name) and receivers.get(target.id) is not None:
        return target.id, receivers[target.id], node.attr
    steps = _construction(target, owner, owner_target, namespace, source)
    if steps is None:
        return None
    return f"<{ast.unparse(node)}>", steps, node.attr


def _forget(statement, receivers):
    """A statement that uses a receiver otherwise (``acc.x = 3``, ``f(acc)``) may change it."""
    for name in _names(statement) & receivers.keys():
        receivers[name] = None


_NAMES = {}


def _names(node):
    """The names ``node`` uses, remembered per node: the sessions' statements are read
    once and then walked for every method of every class (their trees never change)."""
    if isinstance(node, ast.Expr):  # a loop's call, made an expression anew for each reader
        return _names(node.value)
    if node not in _NAMES:
        _NAMES[node] = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return _NAMES[node]
