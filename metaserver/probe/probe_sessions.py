"""Probe helper (runs INSIDE the target environment; standard library only): a method's
examples read from a docstring's ``>>>`` lines as one session.

A method's documented output belongs to the receiver the session built: ``g = Grid("A1")``
then ``g.code()`` -> ``4328`` is a call of ``Grid.code`` on ``Grid("A1")``, and
``acc = Tally(); acc.add(1); acc.add(5); acc.total()`` -> ``6`` a call of ``Tally.total``
after those two setup calls. Each example carries the lines that build and set up its
receiver (the session), so validation replays them through their own tools; the expected
value binds only to the line that printed it. A class attribute that holds an instance
(``Geodesic.WGS84``) is a receiver too, and so is what a method returns when its signature
says it returns the class (a chain: ``noon().later(90).label()``, a ``chained`` step). A
call on a receiver the session did not build (or one it cannot replay) yields arguments,
never an expected value.
"""

import ast
import doctest
import functools
import inspect
import sys
import types

try:  # as metaserver.probe.probe_sessions (tests), or beside probe_script.py
    from .probe_assign import assignment, set_up
    from .probe_constants import constants_key
    from .probe_docs import (
        MAX_EXAMPLES,
        WRAPPERS,
        Literals,
        _bound,
        _imported,
        _item,
        _parsed,
        _statement,
    )
    from .probe_fold import fold_key
    from .probe_held import held_arguments
    from .probe_objargs import bound_objects, changed, object_arguments, passed
    from .probe_returns import (
        _class_factory,
        _factory_of,
        _kept_as_handle,
        _returns,
        returned_class,
    )
    from .probe_text import reads_only, shown_as_text
    from .probe_textsig import text_signature
except ImportError:
    from probe_assign import assignment, set_up
    from probe_constants import constants_key
    from probe_docs import (
        MAX_EXAMPLES,
        WRAPPERS,
        Literals,
        _bound,
        _imported,
        _item,
        _parsed,
        _statement,
    )
    from probe_fold import fold_key
    from probe_held import held_arguments
    from probe_objargs import bound_objects, changed, object_arguments, passed
    from probe_returns import (
        _class_factory,
        _factory_of,
        _kept_as_handle,
        _returns,
        returned_class,
    )
    from probe_text import reads_only, shown_as_text
    from probe_textsig import text_signature

MAX_STEPS = 12


def method_examples(owner, owner_target, method, doc, signature, exposed, built_only=False):
    """Examples of ``owner.method`` from the ``>>>`` sessions of ``doc``.

    ``signature`` is the method's without its receiver; ``exposed`` the tool's parameters.
    With ``built_only`` (a README's sessions, which call many objects' methods), only calls
    on a receiver the session built count: another object's ``get`` says nothing of ours.
    """
    namespace = _namespace(owner)
    is_class = lambda func: inspect.isclass(_resolve(func, namespace))  # noqa: E731
    receivers = {}  # variable -> the steps that built and set it up; None: not replayable
    objects = {}  # variable -> the steps that built another object of the package
    classes = {}  # such a variable -> its class, when a constructor built it
    bound = {}  # ``compare = engine().compare``: name -> (receiver variable, method name)
    stale = set()  # such variables a line changed since (``span.grow(2)``): no arguments
    given = set()  # those the previous line passed to a method (``x.feed(acc)``)
    found = []
    for example, statement in session_statements(doc, namespace, until=method):
        if len(found) >= MAX_EXAMPLES:
            break
        # ``x.feed(acc)`` may have changed ``acc``: no later replay of it, nor argument
        stale |= given & objects.keys()
        receivers.update(dict.fromkeys(given & receivers.keys()))
        given = passed(statement, objects.keys() | receivers.keys(), is_class)
        source = example.source.strip()
        assigned = None
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
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            name = statement.targets[0].id
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
                    builder = _resolve(statement.value.func, namespace)
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
        if (
            wrapper is None
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in WRAPPERS
            and len(node.args) == 1
            and not node.keywords
        ):
            wrapper, node = node.func.id, node.args[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in bound:
            key, member = bound[node.func.id]  # compare("egg", "eggs"): a call of that method
            method_call = ast.Attribute(value=ast.Name(id=key, ctx=ast.Load()), attr=member)
            node = ast.Call(func=method_call, args=node.args, keywords=node.keywords)
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            _forget(statement, receivers)
            continue
        name, target = node.func.attr, node.func.value
        variable = target.id if isinstance(target, ast.Name) else None
        if variable is not None and variable in receivers:
            steps = receivers[variable]
        elif variable is None:  # ``Grid("A1").code()``: built on the line itself
            known = {k: v for k, v in objects.items() if k not in stale}
            steps = _receiver(target, owner, owner_target, namespace, receivers, source, known)
        else:
            steps = None  # a name the session never bound here: the module, or unknown
        if name == method:
            arguments, built, held = _bound(node, signature, exposed), [], {}
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
            item = _item(arguments, wrapper, want, example.exc_msg)
            if item is not None and (steps is not None or not built_only):
                if steps is not None:
                    item["session"] = [dict(step) for step in steps] + built
                    if held:  # the class each such argument is an instance of
                        item["_held"] = held
                    if item["has_expected"]:
                        item["line"] = source
                found.append(item)
        if (
            variable is not None
            and variable in receivers
            and steps is not None
            and not example.exc_msg  # a line that raises is shown, not replayed
        ):
            # The call may change the receiver: later lines see it, so their replay does too.
            receivers[variable] = _setup(owner, owner_target, name, node, steps, source)
        if assigned is not None:  # the call's result: an owner (a chain), or another object
            receivers[assigned] = (
                _chained(owner, owner_target, name, node, steps, source)
                if steps is not None and not example.exc_msg
                else None
            )
    found.sort(key=lambda e: not e["has_expected"])
    return found


_PARSED = {}


def _parsed_once(doc):
    """``_parsed``, remembered per text: a README's sessions are read for many methods."""
    if len(doc) < 2000:
        return _parsed(doc)
    if doc not in _PARSED:
        _PARSED[doc] = _parsed(doc)
    return _PARSED[doc]


_SESSIONS = {}


def session_statements(doc, namespace, until=None):
    """``doc``'s ``>>>`` statements in order, each with its example, as a session reads
    them: names bound to literals put back into later lines (``data = [1, 2]``), and imports
    (a README's ``from pkg import Grid``) binding their names in ``namespace``, not yielded.

    Read once per text and per set of names bound to numpy (the only thing of the namespace
    that the reading depends on, ``Literals._array``): an inherited method's docstring is
    read for every subclass, and a guide for every method it calls. With ``until`` (a
    method's name), the statements end at the last one that calls it: the lines after it
    cannot be its example, and a long guide is read for every method of every class whose
    name it writes."""
    numpy = frozenset(
        name
        for name, value in namespace.items()
        if isinstance(value, types.ModuleType) and value.__name__ == "numpy"
    )
    # and the constants it may name, and the names of math's that it may fold (probe_fold)
    key = (doc, numpy, constants_key(doc, namespace), fold_key(namespace))
    if key not in _SESSIONS:
        _SESSIONS[key] = list(_read_session(doc, dict(namespace)))
    statements = _SESSIONS[key]
    if until is not None:
        statements = statements[: _last_call(key, statements, until)]
    for example, statement in statements:
        if example is None:  # an import line: it binds names in the caller's namespace
            _imported(statement, namespace)
            continue
        yield example, statement


_CALLED = {}


def _last_call(key, statements, method):
    """How many of ``statements`` it takes to reach the last that writes ``.method``; all
    of them when a line binds the method to a name that a later line calls
    (``compare = engine().compare``, then ``compare("egg", "eggs")``: no attribute)."""
    if key not in _CALLED:
        last, assigned, called = {}, {}, set()
        for index, (_, statement) in enumerate(statements):
            for node in ast.walk(statement):
                if isinstance(node, ast.Attribute):
                    last[node.attr] = index + 1
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    called.add(node.func.id)
                elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            assigned.setdefault(target.id, set()).add(node.value.attr)
        bound = set().union(*(assigned[name] for name in called if name in assigned))
        _CALLED[key] = (last, bound)
    last, bound = _CALLED[key]
    return len(statements) if method in bound else last.get(method, 0)


def _read_session(doc, namespace):
    """(example, statement) per statement, (None, statement) per import line."""
    literals = Literals(namespace)
    for example, statement in (p for line in _parsed_once(doc) for p in _line_statements(line)):
        literals.note(statement)
        statement = literals.inline(statement)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            _imported(statement, namespace)
            yield None, statement
            continue
        yield example, statement


def _line_statements(line):
    """A ``>>>`` line as (example, statement) pairs: one, or, for a line of several
    statements (``rs.push(1); rs.push(2); rs.push(6)``), each in turn with its own text as
    its source. The line's output belongs to its last statement, and to none when an
    earlier one is an expression (doctest prints its value too: the output is then not the
    last one's alone); a line that does not parse is none."""
    statement = _statement_once(line.source)
    if statement is not None:
        return [(line, statement)]
    text = line.source.strip()
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    shown = line.want or line.exc_msg
    if shown and any(isinstance(part, ast.Expr) for part in body[:-1]):
        shown = None  # every statement still runs; the output is no one statement's
    pairs = []
    for index, part in enumerate(body):
        source = ast.get_source_segment(text, part)
        if source is None:
            return pairs
        last = shown and index == len(body) - 1
        example = doctest.Example(
            source,
            line.want if last else "",
            line.exc_msg if last else None,
            line.lineno,
            line.indent,
            line.options,
        )
        pairs.append((example, part))
    return pairs


_STATEMENTS = {}


def _statement_once(source):
    """``_statement``, remembered: a README's lines are parsed for many callables (the trees
    are read, never changed)."""
    if source not in _STATEMENTS:
        _STATEMENTS[source] = _statement(source)
    return _STATEMENTS[source]


def _method_call(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)


def _namespace(owner):
    """The names a doctest of ``owner`` sees: its module's globals and the package's."""
    module = sys.modules.get(getattr(owner, "__module__", "") or "")
    names = dict(vars(module)) if module is not None else {}
    package = (getattr(owner, "__module__", "") or "").partition(".")[0]
    if package in sys.modules:
        names.setdefault(package, sys.modules[package])
        names[PACKAGE] = sys.modules[package]
    return names


PACKAGE = "<package>"
"""The namespace key of the package's top module (not an identifier: no line can bind it)."""


def _resolve(node, namespace):
    if isinstance(node, ast.Name):
        return namespace.get(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id not in namespace:
            return _aliased(node.attr, namespace.get(PACKAGE))
        base = _resolve(node.value, namespace)
        if base is None or not (inspect.ismodule(base) or inspect.isclass(base)):
            return None
        try:
            found = inspect.getattr_static(base, node.attr)
        except AttributeError:
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


def _construction(node, owner, owner_target, namespace, source, receivers=None):
    """[the step that builds an ``owner``] when ``node`` calls its constructor with
    literals, or names an instance the class holds (``Geodesic.WGS84``); None otherwise (a
    receiver this session cannot replay through tools).

    With ``receivers`` (an assignment's value), an argument may be an object the session
    built (``resp = frequency_response(sys)``): that object's steps come first, and the
    step ``takes`` what they left."""
    if (
        isinstance(node, ast.Attribute)
        and _resolve(node.value, namespace) is owner
        and not node.attr.startswith("_")
        and isinstance(_resolve(node, namespace), owner)
    ):
        step = {"line": source, "target": f"{owner_target}.{node.attr}", "member": None}
        return [dict(step, arguments={}, attribute=node.attr)]
    if not isinstance(node, ast.Call):
        return None
    builder = _resolve(node.func, namespace)
    factory = builder is not owner and _factory_of(builder, owner)
    if builder is not owner and not factory:
        return None
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):  # a C extension's class: its docstring's first line
        signature = text_signature(builder, getattr(builder, "__name__", ""))
        if signature is None:
            return None
    exposed = {p.name for p in signature.parameters.values()}
    arguments = _bound(node, signature, exposed)
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
    if factory and not _kept_as_handle(owner):
        return None
    step = {"line": source, "target": owner_target, "member": None, "arguments": arguments}
    if takes:
        step["takes"] = takes
    if factory and _class_factory(builder, owner):
        step["target"] = f"{owner_target}.{builder.__name__}"
    elif factory:  # probe_script names it by the target the probe lists the function under
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
    builder = _resolve(node.func, namespace)
    package = getattr(namespace.get(PACKAGE), "__name__", None)
    if package is None or (getattr(builder, "__module__", "") or "").partition(".")[0] != package:
        return None
    if not inspect.isclass(builder):
        if not inspect.isfunction(builder):
            return None
        returned = returned_class(builder)
        if returned is not None and not isinstance(returned, str):
            if not (inspect.isclass(returned) and _kept_as_handle(returned)):
                return None
    try:
        signature = inspect.signature(builder)
    except (TypeError, ValueError):
        return None
    exposed = {p.name for p in signature.parameters.values()}
    arguments, earlier, takes = _bound(node, signature, exposed), [], {}
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
    return _chained(owner, owner_target, node.func.attr, node, inner, source)


def _chained(owner, owner_target, name, call, steps, source):
    """``steps`` and a call of ``owner.name`` whose result is the receiver from then on
    (``chained``), when its signature says it returns an ``owner``; None otherwise."""
    signature = _method_signature(owner, name)
    if signature is None or not _returns(signature.return_annotation, owner):
        return None
    if not _kept_as_handle(owner):
        return None
    steps = _setup(owner, owner_target, name, call, steps, source)
    if steps is None:
        return None
    return [*steps[:-1], dict(steps[-1], chained=True)]


def _bound_method(node, owner, owner_target, namespace, receivers, source):
    """(receiver variable, its steps, method name) when ``node`` is a method of a receiver
    the session built (``engine().compare``, ``acc.add``); None otherwise."""
    if not isinstance(node, ast.Attribute) or node.attr.startswith("_"):
        return None
    if _method_signature(owner, node.attr) is None:
        return None
    target = node.value
    if isinstance(target, ast.Name) and receivers.get(target.id) is not None:
        return target.id, receivers[target.id], node.attr
    steps = _construction(target, owner, owner_target, namespace, source)
    if steps is None:
        return None
    return f"<{ast.unparse(node)}>", steps, node.attr


def _setup(owner, owner_target, name, call, steps, source):
    """``steps`` and one more: a call of ``owner.name`` with literal arguments; None when it
    is not a plain method with such arguments (the session can no longer be replayed)."""
    if len(steps) >= MAX_STEPS:
        return None
    signature = _method_signature(owner, name)
    if signature is None or name.startswith("_"):
        return None
    parameters = list(signature.parameters.values())[1:]
    signature = signature.replace(parameters=parameters)
    arguments = _bound(call, signature, {p.name for p in parameters})
    if arguments is None:
        return None
    step = {"line": source, "target": f"{owner_target}.{name}", "member": name}
    return [*steps, dict(step, arguments=arguments)]


def _method_signature(owner, name):
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
            return text_signature(static, name, method=True)
    return None


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
