"""Probe helper (runs INSIDE the target environment; standard library only): a doctest
session read once into statements.

``session_statements`` parses a docstring's or guide's session into statements, binding
what its imports name and writing in the literals and constants it binds (examples.Literals),
each kept per text and namespace key so that every member reading the same guide reads it
once; the last call a session shows of each name is noted with it.
"""

import ast
import doctest
import types

from .constants import constants_key
from .doctest_lines import bind_imports, parsed_examples, plain_assignment, single_statement
from .examples import Literals, shape_of_attribute
from .fold import fold_key
from .text import print_argument

_PARSED = {}


def _parsed_once(doc):
    """``parsed_examples``, remembered per text: a README's sessions are read for many methods."""
    if len(doc) < 2000:
        return parsed_examples(doc)
    if doc not in _PARSED:
        _PARSED[doc] = parsed_examples(doc)
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
    # and the constants it may name, and the names of math's that it may fold (fold)
    key = (doc, numpy, constants_key(doc, namespace), fold_key(namespace))
    if key not in _SESSIONS:
        _SESSIONS[key] = list(_read_session(doc, dict(namespace)))
    statements = _SESSIONS[key]
    if until is not None:
        end = _last_call(key, statements, until)
        # and the lines right after it that show a name alone (``e, r = sat.sgp4(t)``,
        # then ``e``), or its attribute: what the call's result holds (sessions._show_pending)
        while end < len(statements) and _shows_a_name(statements[end][1]):
            end += 1
        end = _last_shown_result(key, statements, end, until)
        statements = statements[:end]
    for example, statement in statements:
        if example is None:  # an import line: it binds names in the caller's namespace
            bind_imports(statement, namespace)
            continue
        yield example, statement


_CALLED = {}


def _shows_a_name(statement):
    """A line that shows a name alone, or a public attribute of one (``res.nobs``), or
    prints either (``print(r)``: examples.held_name reads it)."""
    return _shown_name(statement) is not None


def _shown_name(statement):
    """The name such a line shows (``res`` for ``res.nobs``), else None."""
    if not isinstance(statement, ast.Expr):
        return None
    node = print_argument(statement.value) or statement.value
    if shape_of_attribute(node):  # ``data.observations.shape``
        node = node.value
    if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


_SHOWN = {}


def _last_shown_result(key, statements, end, method):
    """``end``, or past it the place after the last line that shows a name a call of
    ``method`` bound: a test checks other things before the value it asserts (``phi, psi, x
    = w.wavefun(level=3)``, then ``assert_allclose(x, ...)`` and ``phi_expect = ...``, then
    ``phi``). The lines between are read as any (sessions._show_pending ends a name a line
    rebinds or may change). What each method's calls bind and where each name is last
    shown are found once per text, as ``_last_call``'s places are."""
    if key not in _SHOWN:
        bound, shown = {}, {}
        for index, (_, statement) in enumerate(statements):
            if isinstance(statement, ast.Assign):
                names = [
                    element.id
                    for target in statement.targets
                    for element in getattr(target, "elts", [target])
                    if isinstance(element, ast.Name)
                ]
                for node in ast.walk(statement.value):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                        bound.setdefault(node.func.attr, set()).update(names)
            name = _shown_name(statement)
            if name is not None:
                shown[name] = index + 1
        _SHOWN[key] = (bound, shown)
    bound, shown = _SHOWN[key]
    return max([end, *(shown.get(name, 0) for name in bound.get(method, ()))])


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
    for example, statement in (p for line in _parsed_once(doc) for p in line_statements(line)):
        literals.note(statement)
        statement = literals.inline(statement)
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            bind_imports(statement, namespace)
            yield None, statement
            continue
        yield example, statement


def line_statements(line):
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
        body = [plain_assignment(part) for part in ast.parse(text).body]
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
    """``single_statement``, remembered: a README's lines are parsed for many callables (the trees
    are read, never changed)."""
    if source not in _STATEMENTS:
        _STATEMENTS[source] = single_statement(source)
    return _STATEMENTS[source]
