"""Probe helper (runs INSIDE the target environment; standard library only): the lines of
a doctest session, read.

A docstring's ``>>>`` examples parsed (a statement left open continued on the line doctest
took for its output), each as one statement; the call of a named function in a line (inside
a wrapper such as ``list(...)``: ``WRAPPERS``, the one copy the host's readers import too);
a call's arguments bound to a signature; the names an import line binds from modules the
probe already imported. Imports nothing else of the probe.
"""

import ast
import doctest
import inspect
import sys

from .json_values import Unsupported, json_safe

WRAPPERS = {"list", "tuple", "sorted", "set", "frozenset", "dict"}
MAX_EXAMPLES = 5


# ---------------------------------------------------------------- doctest examples


def unwrapped(node):
    """(the call inside, the wrapper's name) when ``node`` is ``list(x)``, ``sorted(x)``...
    of one argument (a shown value made comparable); None otherwise."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0], node.func.id
    return None


def rounded(node):
    """The value ``node`` shows rounded (``aov.round(3)``, ``ttest(x, 4).round(2)``): what a
    comparison to the digits shown compares anyway; ``node`` itself for any other line."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "round"
        and len(node.args) + len(node.keywords) <= 1
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args)
        and all(
            k.arg == "decimals" and isinstance(k.value, ast.Constant) and type(k.value.value) is int
            for k in node.keywords
        )
    ):
        return node.func.value
    return node


def call_in(node, names):
    """(wrapper, call) when ``node`` is ``f(...)`` or ``list(f(...))`` with f in ``names``,
    shown rounded or not (``rounded``)."""
    wrapper = None
    node = rounded(node)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
        and node.func.id not in names
    ):
        wrapper, node = node.func.id, rounded(node.args[0])
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if called not in names:
        return None
    return wrapper, node


def parsed_examples(doc):
    try:
        examples = doctest.DocTestParser().get_examples(doc)
    except ValueError:
        return []
    return [_continued(example) for example in examples]


MAX_CODE_LINES = 20
"""Lines of a docstring's plain code (not ``>>>`` lines) read as a session, at most."""


def code_lines_session(doc, called):
    """A docstring's code written without prompts (``m = formula( "CaCO3+6H2O" )`` under
    "Example compounds:"), as a ``>>>`` session without outputs: each line that matches
    ``called`` (the function's names followed by ``(``) and parses alone as one statement.
    What the docs show of its use, not guessed; it shows no value."""
    found = []
    for line in (doc or "").splitlines():
        text = line.strip()
        if text.startswith((">>>", "...")) or not called.search(text):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], (ast.Expr, ast.Assign)):
            found.append(f">>> {text}")
        if len(found) >= MAX_CODE_LINES:
            break
    return "\n".join(found) + "\n" if found else ""


def _continued(example):
    """``example`` with the lines doctest took for its output joined to its source when the
    source leaves a bracket open and they close it: a README that leaves out the ``...``
    prompts (``>>> h2 = Atoms('H2',`` then ``positions=[...])`` on the next line) writes
    one statement, not a line and its output."""
    source, want = example.source, example.want
    if not want or sum(source.count(c) for c in "([{") <= sum(source.count(c) for c in ")]}"):
        return example
    try:
        ast.parse(source + want)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return example
    return doctest.Example(
        source + want, "", lineno=example.lineno, indent=example.indent, options=example.options
    )


def single_statement(source):
    try:
        tree = ast.parse(source.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return plain_assignment(tree.body[0]) if len(tree.body) == 1 else None


def plain_assignment(statement):
    """``path: "Path" = get_path("ct")`` as the assignment it makes (a README's annotated
    line binds its name as any other does); any other statement as it is."""
    if not (isinstance(statement, ast.AnnAssign) and statement.value is not None):
        return statement
    if not isinstance(statement.target, ast.Name):
        return statement
    plain = ast.Assign(targets=[statement.target], value=statement.value)
    return ast.fix_missing_locations(ast.copy_location(plain, statement))


def literal_arguments(call, signature, exposed):
    """The call's literal arguments by parameter name, or None when they are not literals
    or do not fit ``signature`` and the tool's ``exposed`` parameters."""
    bound = bound_by(call, signature, ast.literal_eval)
    try:
        arguments = {k: json_safe(v) for k, v in (bound or {}).items()}
    except (Unsupported, RecursionError):
        return None
    return arguments if bound is not None and set(arguments) <= exposed else None


def array_codecs(call, signature):
    """The codec (``numpy:int16``) of each argument of ``call`` that numpy built, by
    parameter name: a literal that remembers it (examples.Literals)."""
    bound = bound_by(call, signature, lambda node: getattr(node, "codec", None))
    codecs = {}
    for name, codec in (bound or {}).items():
        if isinstance(codec, (tuple, dict)):
            # ``*args`` or ``**kwargs`` (``IIDBootstrap(x, y=y, z=z)``): the runtime decodes
            # each item by the parameter's one codec, so one only where numpy's agree
            made = {c for c in (codec.values() if isinstance(codec, dict) else codec) if c}
            codec = made.pop() if len(made) == 1 else None
        if isinstance(codec, str):
            codecs[name] = codec
    return codecs


def bound_by(call, signature, value):
    """The call's arguments by parameter name, each read by ``value`` (a literal, an
    instance held by name, an object built before); None when one cannot be read
    (``value`` raises ValueError, as ``ast.literal_eval`` does) or they do not fit."""
    if any(k.arg is None for k in call.keywords) or any(
        isinstance(a, ast.Starred) for a in call.args
    ):
        return None
    try:
        args = [value(a) for a in call.args]
        kwargs = {k.arg: value(k.value) for k in call.keywords}
        return dict(signature.bind(*args, **kwargs).arguments)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def bind_imports(statement, namespace):
    """Bind the names an import line of a session gives, from modules the probe has already
    imported (nothing is imported here: a guide's import of another library stays unknown)."""
    for alias in statement.names:
        if isinstance(statement, ast.Import):
            top = alias.name.partition(".")[0]
            module = sys.modules.get(alias.name if alias.asname else top)
            if module is not None:
                namespace[alias.asname or top] = module
            else:  # a module the probe never imported: the name means nothing we know
                namespace.pop(alias.asname or top, None)
            continue
        if statement.level or not statement.module or alias.name == "*":
            continue
        # As ``from X import Y`` does: X's attribute Y first, then the submodule X.Y (the
        # package ``croniter`` exports the class ``croniter`` over its module of that name).
        module = sys.modules.get(statement.module)
        try:
            value = inspect.getattr_static(module, alias.name) if module is not None else None
        except AttributeError:
            value = None
        if value is None:
            value = sys.modules.get(f"{statement.module}.{alias.name}")
        if value is not None:
            namespace[alias.asname or alias.name] = value
        else:
            namespace.pop(alias.asname or alias.name, None)
