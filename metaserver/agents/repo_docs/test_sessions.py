"""The test suite's tests as doctest sessions, for the probe to read a method's examples in.

A method is proven where its receiver is built and set up first: ``t = Tree(); t.add(1,
5)`` then ``assert t.overlap(2) == [(1, 5)]``. The probe reads README and guide sessions
that way (``probe/sessions.py``); a test reads the same once its assertions are written
as a doctest shows a value: ``assert CALL == LITERAL`` (or ``pytest.approx``, or
``assert_allclose(CALL, LITERAL)`` at a tolerance no looser than validation's) becomes
``>>> CALL`` with the literal's ``repr`` as its output, and every other line stays a line
(after ``test_params.bind_parameters`` and ``test_calls.inline_literals`` put its literals
in). Such a text is our reading, not the repository's example as written: what the probe
finds in it is a ``usage`` example, never the repository's line (``validate/attribution``
blames the repository only on its own lines, unchanged). Static only (``ast``, host
side): nothing is imported or run.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterator
from pathlib import Path

from metaserver.agents.repo_docs.moments import datetime_names, shown_moment
from metaserver.agents.repo_docs.patched import patched_nodes
from metaserver.agents.repo_docs.test_calls import asserted_pairs, inline_literals, suite_files
from metaserver.agents.repo_docs.test_helpers import Helpers, assertion_helpers, inline_helpers
from metaserver.agents.repo_docs.test_params import bind_parameters
from metaserver.probe.fold import literal_value

__all__ = ["MAX_TEXT", "suite_sessions"]

MAX_TEXT = 100_000
"""Characters of session text at most, over all tests: the probe reads each text for every
method whose name it writes after a dot."""
MAX_FILE_BYTES = 400_000
MAX_STATEMENTS = 40
"""A test's statements at most before its last shown value: a longer one is a scenario, not
a usage."""
MAX_SHOWN = 2_000
"""Characters of one shown value at most (its repr)."""

_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_RAISING = {"raises", "assertRaises", "assertRaisesRegex", "warns", "deprecated_call"}


def suite_sessions(root: Path, guides: list[str] | None = None) -> list[str]:
    """One doctest-style text per test under ``root`` that shows a value (an assertion of a
    call's, a name's or an attribute's result against a literal), up to MAX_TEXT: the test
    files that name most of what the ``guides`` (the README's and guide pages' sessions)
    call come first, then file order. A large suite holds ten times MAX_TEXT (pydicom's,
    1 MB), and in file order the budget went to the first modules of the alphabet."""
    texts: list[str] = []
    size = 0
    helpers = assertion_helpers(root)
    for source in _ranked(suite_files(root), _called_names(guides or [])):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        try:
            found = list(_file_sessions(tree, helpers))
        except (ValueError, RecursionError, MemoryError):
            continue  # a file too deep or odd to rewrite: its tests are read by usage alone
        for text in found:
            if size + len(text) > MAX_TEXT:
                return texts
            texts.append(text)
            size += len(text)
    return texts


_CALLED = re.compile(r"(\w+)\s*\(")
_WORD = re.compile(r"\w+")


def _called_names(guides: list[str]) -> set[str]:
    """The names the guides call (``nib.load(...)``, ``img.get_fdata()``: load, get_fdata)."""
    return {name for text in guides for name in _CALLED.findall(text) if not name.isdigit()}


def _ranked(paths: Iterator[Path], called: set[str]) -> list[str]:
    """Each readable test file's text, those naming more of ``called`` first."""
    read: list[tuple[int, int, Path, str]] = []
    for place, path in enumerate(paths):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            source = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        named = len(called & set(_WORD.findall(source))) if called else 0
        read.append((-named, place, path, source))
    return [source for _, _, _, source in sorted(read, key=lambda r: r[:2])]


def _file_sessions(tree: ast.Module, helpers: Helpers) -> Iterator[str]:
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    tree.body = [lifted for node in tree.body for lifted in _lifted(node, classes)]
    tree = inline_helpers(tree, helpers)  # ``assert_datetime(d, 2015, 2, 6)``, written out
    bind_parameters(tree)
    inline_literals(tree)
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    moments = datetime_names(ast.Module(body=list[ast.stmt](imports), type_ignores=[]))
    patched = patched_nodes(tree)  # ``@freeze_time(...)``: values of a patched world
    for test in _tests(tree):
        if id(test) in patched:
            continue
        try:
            lines, shown = _session_lines(test.body, moments)
        except (ValueError, RecursionError):
            continue  # a line ``ast.unparse`` cannot write (3.11: a backslash in an f-string)
        if shown:
            header = [line for statement in imports for line in _prompted(statement)]
            yield "\n".join([*header, *lines]).strip()


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SETUPS = ("setUp", "setup_method", "setup")
"""The methods unittest and pytest run before each test of a class."""


def _lifted(node: ast.stmt, classes: dict[str, ast.ClassDef]) -> list[ast.stmt]:
    """A test class's tests as module functions, each with the class's setup lines first and
    ``self.ds`` read as a name ``ds`` (``self.ds = Dataset()`` in ``setup_method``, then
    ``assert self.ds.get(...) == 1``): a session follows names, not a test object's
    attributes. A class of the module that it derives from lends its tests, setup and
    aliases where the class has none of its own; an inherited test is lifted again only
    where the class names another class under test (``header_class = Nifti1Header`` over
    its base's ``Nifti1PairHeader``): otherwise it is the base's session once more.
    ``classes``: the module's classes by name. Anything else as it is."""
    if not isinstance(node, ast.ClassDef) or not node.name.startswith("Test"):
        return [node]
    chain = _chain(node, classes)
    own = {cls.name: _dumped(_class_aliases(cls)) for cls in chain}
    aliases: dict[str, ast.expr] = {}
    for cls in reversed(chain):
        aliases.update(_class_aliases(cls))
    named = _dumped(aliases)
    owned: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef]] = {}
    for cls in chain:
        for method in cls.body:
            if isinstance(method, _FUNCTIONS) and method.name not in owned:
                owned[method.name] = (method, cls)
    setup = next((m for name, (m, _) in owned.items() if name in _SETUPS), None)
    builders = {name: m for name, (m, _) in owned.items() if _builder(m)}
    lifted: list[ast.stmt] = []
    for method, defined in owned.values():
        if not method.name.startswith("test") or not method.args.args:
            continue
        if defined is not node and all(named[k] == v for k, v in own[defined.name].items()):
            continue  # the base's own session: read where the base is
        test = copy.deepcopy(method)
        test.args.args = test.args.args[1:]  # self
        first = copy.deepcopy(setup.body) if setup is not None else []
        if first and _is_docstring(first[0]):
            first = first[1:]
        body = [line for s in test.body for line in _built_inline(s, builders)]
        test.body = [*first, *body]
        set_here = {  # ``self.header_class = ...`` in the setup or the test: its own
            target.attr
            for target in ast.walk(test)
            if isinstance(target, ast.Attribute) and not isinstance(target.ctx, ast.Load)
        }
        kept = {k: v for k, v in aliases.items() if k not in set_here}
        lifted.append(_SelfAttributes(kept).visit(test))
    return lifted


_MAX_BASES = 8


def _chain(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """``node`` and the classes of its module it derives from, nearest first."""
    chain = [node]
    for cls in chain:
        for base in cls.bases:
            found = classes.get(base.id) if isinstance(base, ast.Name) else None
            if found is not None and found not in chain and len(chain) < _MAX_BASES:
                chain.append(found)
    return chain


def _dumped(aliases: dict[str, ast.expr]) -> dict[str, str]:
    return {name: ast.dump(value) for name, value in aliases.items()}


def _class_aliases(node: ast.ClassDef) -> dict[str, ast.expr]:
    """The names a test class's body binds once to a name or a dotted name
    (``header_class = Nifti1PairHeader``): its tests' ``self.header_class()`` builds that."""
    bound: dict[str, list[ast.expr]] = {}
    for statement in node.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, []).append(statement.value)
    return {
        name: values[0] for name, values in bound.items() if len(values) == 1 and _dotted(values[0])
    }


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id != "self"


def _builder(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A class's helper that builds what its tests use (``h = self.new_hmm(impl)``): plain
    positional parameters, straight-line assignments and calls, ending ``return VALUE``."""
    arguments = method.args
    if (
        method.name.startswith("test")
        or method.name in _SETUPS
        or method.decorator_list
        or not arguments.args
        or arguments.vararg
        or arguments.kwarg
        or arguments.kwonlyargs
        or arguments.defaults
        or not method.body
        or not isinstance(method.body[-1], ast.Return)
        or method.body[-1].value is None
    ):
        return False
    body = method.body[1:-1] if _is_docstring(method.body[0]) else method.body[:-1]
    return all(isinstance(s, ast.Assign | ast.AnnAssign | ast.Expr) for s in body)


def _built_inline(
    statement: ast.stmt, builders: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> list[ast.stmt]:
    """``h = self.new_hmm(impl)`` as the helper's own lines, its parameters bound to the
    arguments first and its returned value assigned last; any other line as it is."""
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and isinstance(statement.value.func.value, ast.Name)
        and statement.value.func.value.id == "self"
        and statement.value.func.attr in builders
    ):
        return [statement]
    call = statement.value
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
    helper = builders[call.func.attr]
    names = [a.arg for a in helper.args.args[1:]]
    given: dict[str, ast.expr] = dict(zip(names, call.args, strict=False))
    if len(call.args) > len(names) or any(
        k.arg is None or k.arg not in names or k.arg in given for k in call.keywords
    ):
        return [statement]
    given |= {str(k.arg): k.value for k in call.keywords}
    if set(given) != set(names):
        return [statement]
    bound: list[ast.stmt] = [
        ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(value), lineno=0)
        for name, value in given.items()
        if not (isinstance(value, ast.Name) and value.id == name)
    ]
    body = copy.deepcopy(helper.body)
    if _is_docstring(body[0]):
        body = body[1:]
    returned = body.pop()
    assert isinstance(returned, ast.Return) and returned.value is not None
    target = statement.targets[0]
    value = returned.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Name) and value.id == target.id:
        return [*bound, *body]  # ``t = ...; return t`` assigned to ``t`` already
    last = ast.Assign([copy.deepcopy(target)], returned.value, lineno=0)
    return [*bound, *body, ast.fix_missing_locations(last)]


class _SelfAttributes(ast.NodeTransformer):
    """``self.ds`` as the name ``ds``, and ``self.header_class`` as what the class body
    bound that name to (``aliases``)."""

    def __init__(self, aliases: dict[str, ast.expr]) -> None:
        self.aliases = aliases

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            alias = self.aliases.get(node.attr)
            if alias is not None and isinstance(node.ctx, ast.Load):
                return ast.copy_location(copy.deepcopy(alias), node)
            return ast.copy_location(ast.Name(node.attr, node.ctx), node)
        self.generic_visit(node)
        return node


def _tests(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and node.name.startswith("test"):
            yield node


def _session_lines(body: list[ast.stmt], moments: dict[str, str]) -> tuple[list[str], int]:
    """The session's lines, and how many of them show a value; cut after the last shown
    value, and never past MAX_STATEMENTS statements. ``moments``: ``datetime_names``."""
    lines: list[str] = []
    shown, kept = 0, 0
    for place, statement in enumerate(body[:MAX_STATEMENTS]):
        if place == 0 and _is_docstring(statement):
            continue
        if _expects_failure(statement):
            continue  # a line that raises: shown how it fails, not replayed
        value = _shown_value(statement, moments)
        if value is not None:
            expression, want = value
            lines += [*_prompted(expression), want, ""]
            shown += 1
            kept = len(lines)
        elif not isinstance(statement, ast.Assert):
            lines += [*_prompted(statement), ""]
    return lines[:kept], shown


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _expects_failure(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.With | ast.AsyncWith | ast.Try):
        return isinstance(statement, ast.Try) or any(
            isinstance(item.context_expr, ast.Call) and _called(item.context_expr) in _RAISING
            for item in statement.items
        )
    return False


def _shown_value(statement: ast.stmt, moments: dict[str, str]) -> tuple[ast.expr, str] | None:
    """(what is shown, the repr of the literal it equals) for an assertion of a call's, a
    name's or a public attribute's value against a literal, or a date or duration
    (``moments``: the file's ``datetime_names``); None for any other line."""
    if not isinstance(statement, ast.Assert | ast.Expr):
        return None
    if isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Call):
        return None
    pairs = list(asserted_pairs(statement))
    if len(pairs) != 1:
        return None
    for shown, value in (pairs[0], pairs[0][::-1]):
        if not _showable(shown):
            continue
        try:
            literal = literal_value(value)
        except _LITERAL_ERRORS:
            moment = shown_moment(value, moments)  # ``datetime(1924, 8, 29)``, as its repr
            if moment is not None:
                return shown, moment
            continue
        if isinstance(literal, set | frozenset):
            continue  # a set's repr has no order a doctest's output can be compared by
        text = repr(literal)
        if len(text) <= MAX_SHOWN and "\n" not in text:
            return shown, text
    return None


def _showable(node: ast.expr) -> bool:
    """A call, a name, or a public attribute of one: what a doctest line shows the value of."""
    if isinstance(node, ast.Attribute):
        return not node.attr.startswith("_") and isinstance(node.value, ast.Name | ast.Call)
    return isinstance(node, ast.Call | ast.Name)


def _prompted(node: ast.AST) -> list[str]:
    first, *rest = ast.unparse(node).splitlines() or [""]
    return [f">>> {first}", *(f"... {line}" for line in rest)]


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None
