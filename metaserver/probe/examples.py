"""Probe helper (runs INSIDE the target environment; standard library only): docstrings.

Per-parameter descriptions (Google, NumPy, reST), the summary line, and doctest calls with
literal arguments (and the literal results they show) as examples.
"""

import ast
import copy
import doctest
import inspect
import re
import sys
import typing

from .constants import inline_constants, stored
from .fold import folded
from .frames import frame_literal
from .schemas import Unsupported, json_safe
from .text import shown_as_text

WRAPPERS = {"list", "tuple", "sorted", "set", "frozenset", "dict"}
MAX_EXAMPLES = 5
FRACTION_NAMES = ("fraction", "rational", "mpq")


def repr_shaped(want: str) -> bool:
    """Whether a shown output is a value in repr style that validation can check: a call
    with one number, number text or list (``mpfr('1.5')``, ``array([1, 2])``), a fraction's
    two integers, or number text and a precision. Mirrors validate/reprs.py.
    """
    try:
        node = ast.parse(want.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if _record_shaped(node):
        return True
    if not isinstance(node, ast.Call) or not 1 <= len(node.args) <= 2:
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    try:
        args = [ast.literal_eval(a) for a in node.args]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    if not name or any(isinstance(a, bool) for a in args):
        return False
    if len(args) == 2:
        if any(word in name.lower() for word in FRACTION_NAMES):
            return all(type(a) is int for a in args) and args[1] != 0
        return number_text(args[0]) and type(args[1]) is int
    return isinstance(args[0], (int, float, list, tuple)) or number_text(args[0])


def _record_shaped(node: ast.expr) -> bool:
    """A record printed as its constructor call with named fields
    (``Version(major=4, minor=0, prerelease=None)``): every value a literal."""
    if not isinstance(node, ast.Call) or not node.keywords or node.args:
        return False
    if not isinstance(node.func, (ast.Name, ast.Attribute)):
        return False
    try:
        for keyword in node.keywords:
            if keyword.arg is None:
                return False
            ast.literal_eval(keyword.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def number_text(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        float(value.strip())
    except ValueError:
        return "/" in value and all(
            part.strip().lstrip("-").isdigit() for part in value.split("/", 1)
        )
    return True


# ---------------------------------------------------------------- docstrings


def _parameters_section(doc):
    """The body of a docstring's Google ``Args:`` or NumPy ``Parameters`` section, or None."""
    section = re.search(
        r"\n\s*(Args|Arguments|Parameters)\s*:?\s*\n(?:\s*-+\s*\n)?(.*?)(\n\s*\n\S|\Z)",
        "\n" + doc,
        re.S,
    )
    return section.group(2) if section else None


def parameter_docs(doc):
    """Per-parameter descriptions from Google, NumPy or reST docstrings."""
    found = {}
    for match in re.finditer(r":param\s+(?:[\w\[\], .]+\s+)?(\w+):\s*(.+)", doc):
        found.setdefault(match.group(1), match.group(2).strip())
    section = _parameters_section(doc)
    if section:
        # NumPy: "name : type" (or a bare "name") with the description indented below it.
        for match in re.finditer(
            r"^([ \t]*)\*{0,2}(\w+)(?:[ \t]+:[^\n]*)?\n((?:\1[ \t]+\S[^\n]*(?:\n|$))+)",
            section,
            re.M,
        ):
            found.setdefault(match.group(2), " ".join(match.group(3).split()))
        for match in re.finditer(
            r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\)|:\s*[^\n]*?)?\s*:\s*(.+)$", section, re.M
        ):
            found.setdefault(match.group(1), match.group(3).strip())
    return found


# A parameter described as one class of the package, and nothing else: "a
# :class:`~pkg.geodesic.Geodesic` object" (Sphinx's role, the reST docstrings' usual way).
_CLASS_ROLE = re.compile(
    r"(?:an?\s+|the\s+)?:(?:py:)?class:`~?([\w.]+)`(?:\s+(?:object|instance))?\s*\.?", re.I
)


_TYPE_NAME = re.compile(r"~?([A-Za-z_][\w.]*)(?:\s*,\s*optional)?")
_CALLABLE_TYPES = {"callable", "function"}


def returned_type(doc):
    """The type text of a docstring's first documented result (reST ``:rtype: T``, NumPy's
    ``Returns`` section ``name : T`` or a bare ``T``, Google's ``T: what``), markup and an
    ``optional`` left as written; None when it documents none."""
    match = re.search(r":rtype:\s*(\S[^\n]*)", doc)
    if match:
        return match.group(1).strip()
    section = re.search(
        r"\n\s*Returns?\s*:?\s*\n(?:\s*-+\s*\n)?(.*?)(?:\n\s*\n\S|\Z)", "\n" + doc, re.S
    )
    lines = section.group(1).strip().splitlines() if section else []
    first = lines[0].strip() if lines else ""
    if not first:
        return None
    if " : " in first or first.endswith(" :"):
        return first.partition(":")[2].strip() or None
    google = re.match(r"([\w.`~]+)\s*:", first)
    return google.group(1) if google else first


def parameter_types(doc):
    """Per-parameter type text: reST ``:type name: T``, NumPy ``name : T``, Google
    ``name (T): ...``."""
    found = {}
    for match in re.finditer(r":type\s+(\w+):\s*(.+)", doc):
        found.setdefault(match.group(1), match.group(2).strip())
    section = _parameters_section(doc)
    if section:
        for pattern in (
            r"^[ \t]*\*{0,2}(\w+)[ \t]+:[ \t]*(\S[^\n]*)$",
            r"^\s*(\w+)\s*\(([^)]*)\)\s*:",
        ):
            for match in re.finditer(pattern, section, re.M):
                found.setdefault(match.group(1), match.group(2).strip())
    return found


def documented_type(text, module):
    """What a parameter's docstring type says it takes, when it is one class of the package
    (NumPy's ``model : Model``, ``:class:`~pkg.Model```, "Model, optional") or a function
    (``fcn : callable``: ``typing.Callable``, as if annotated); else None."""
    text = (text or "").strip()
    if text.lower().partition(",")[0].strip() in _CALLABLE_TYPES:
        return typing.Callable
    match = _CLASS_ROLE.fullmatch(text) or _TYPE_NAME.fullmatch(text)
    found = _package_class(match.group(1), module) if match else None
    return found or named_class(text, module)


def documented_class(description, module):
    """The package's class that a parameter's whole description names (an unannotated
    ``earth``: "a :class:`~pkg.geodesic.Geodesic` object", "A NetworkX graph."), else None.
    A description that says more ("a list of :class:`Point`", "a :class:`Point` or a
    tuple") names no type."""
    description = (description or "").strip()
    match = _CLASS_ROLE.fullmatch(description)
    found = _package_class(match.group(1), module) if match else None
    return found or named_class(description, module)


# ---------------------------------------------------------------- classes named in words

# Words that make a type text say more than "one object of this class" ("a list of Graph",
# "Graph or list of nodes"): any of them refuses the whole text.
_SAYS_MORE = frozenset(
    "of to for with in from and on by as like per each every list lists tuple tuples dict "
    "dicts dictionary mapping set sets sequence sequences iterable iterator generator array "
    "arrays collection container pair pairs".split()
)
# A type word that is a Python or numpy type before it is a class of some package: a
# package's ``Array`` or ``Matrix`` is named by its exact spelling, never by these.
_GENERIC = frozenset(
    "array ndarray list tuple dict set str string int integer float number bool boolean "
    "object callable function sequence iterable mapping scalar matrix vector any type class "
    "path file value values data none".split()
)
_FILLER = frozenset({"object", "instance"})
_ARTICLES = frozenset({"a", "an", "the", "any"})
_ROLE_MARKUP = re.compile(r":(?:py:)?(?:class|obj):")
MAX_MODIFIERS = 2


def named_class(text, module):
    """The package's class that a type text names in words, case aside, as its last noun:
    "graph", "NetworkX graph", "a Graph", "graph object", "Graph or DiGraph" (the first of
    alternatives that all name classes). The noun names a class only when exactly one
    public class of the package is called that (the top-level export first); a text that
    says more ("a list of Graph", "Graph or list of nodes"), or whose noun is a plain type
    word ("array"), names none."""
    if module is None or not text:
        return None
    text = _ROLE_MARKUP.sub("", text).replace("`", "").replace("~", "")
    text = re.sub(r"\([^()]*\)", " ", text)  # "Graph (undirected)": a remark
    text = re.sub(r",?\s*optional\b.*$", "", text.strip(), flags=re.I).strip().rstrip(".")
    found = []
    for alternative in re.split(r"\s+or\s+|\s*,\s*|\s*/\s*", text):
        words = alternative.split()
        while words and words[0].lower() in _ARTICLES:
            words = words[1:]
        while len(words) > 1 and words[-1].lower() in _FILLER:
            words = words[:-1]
        if not words or len(words) > MAX_MODIFIERS + 1:
            return None
        if any(
            w.lower() in _SAYS_MORE or not re.fullmatch(r"[A-Za-z][\w-]*", w) for w in words[:-1]
        ):
            return None
        if len(words) == 1 and words[0].lower() == "none":
            continue
        noun = words[-1].rpartition(".")[2]  # "nx.Graph": the package under another name
        if not re.fullmatch(r"[A-Za-z]\w*", noun):
            return None
        cls = _class_called(noun, module)
        if cls is None or (noun.lower() in _GENERIC and noun != cls.__name__):
            return None  # a plain type word ("array"): only the exact spelling names a class
        found.append(cls)
    return found[0] if found else None


def _class_called(noun, module):
    """The one public class of ``module``'s package whose name is ``noun``, case aside: the
    top-level module's export when it has exactly one, else the one class defined under
    that name in the package's imported modules; None when none or several are."""
    package = module.__name__.partition(".")[0]
    wanted = noun.lower()
    top = sys.modules.get(package)
    if top is not None:
        exported = _index(("top", package), package)
        if len(exported["read"]) != 1 or exported["size"] != len(vars(top)):
            exported.update(read=set(), size=len(vars(top)), classes={})
            _add(exported, top, package, defined=False)
        if wanted in exported["classes"]:
            return exported["classes"][wanted]
    defined = _index(("all", package), package)
    for name, found in list(sys.modules.items()):
        if name not in defined["read"] and (name == package or name.startswith(package + ".")):
            if found is not None:
                _add(defined, found, package, defined=True)
    return defined["classes"].get(wanted)


_CLASS_NAMES = {}


def _index(key, package):
    return _CLASS_NAMES.setdefault(key, {"read": set(), "size": 0, "classes": {}})


def _add(index, module, package, defined):
    """Index the module's public classes of the package by lowercase name (``defined``:
    only where each is defined, not re-exported); a name that several classes share maps
    to None. Each module is read once (the probe imports them one by one)."""
    index["read"].add(module.__name__)
    classes = index["classes"]
    for name, value in list(vars(module).items()):
        if name.startswith("_") or not _own_class(value, package):
            continue
        if defined and (value.__module__ != module.__name__ or value.__name__ != name):
            continue  # a re-export or an alias: counted where it is defined
        key = name.lower()
        classes[key] = value if classes.get(key, value) is value else None


def _own_class(value, package):
    return inspect.isclass(value) and (
        (getattr(value, "__module__", "") or "").partition(".")[0] == package
    )


def _package_class(path, module):
    """The class ``path`` names (dotted, or a name in ``module``) if it is the package's."""
    if module is None:
        return None
    package = module.__name__.partition(".")[0]
    where, _, name = path.rpartition(".")
    holder = sys.modules.get(where) if where else module
    try:
        cls = inspect.getattr_static(holder, name) if holder is not None else None
    except AttributeError:
        return None
    own = (getattr(cls, "__module__", "") or "").partition(".")[0] == package
    return cls if inspect.isclass(cls) and own else None


def summary_of(doc):
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


# ---------------------------------------------------------------- doctest examples


def call_in(node, names):
    """(wrapper, call) when ``node`` is ``f(...)`` or ``list(f(...))`` with f in ``names``."""
    wrapper = None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
        and node.func.id not in names
    ):
        wrapper, node = node.func.id, node.args[0]
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if called not in names:
        return None
    return wrapper, node


def _parsed(doc):
    try:
        examples = doctest.DocTestParser().get_examples(doc)
    except ValueError:
        return []
    return [_continued(example) for example in examples]


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


def _statement(source):
    try:
        tree = ast.parse(source.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree.body[0] if len(tree.body) == 1 else None


def _bound(call, signature, exposed):
    """The call's literal arguments by parameter name, or None when they are not literals
    or do not fit ``signature`` and the tool's ``exposed`` parameters."""
    bound = bound_by(call, signature, ast.literal_eval)
    try:
        arguments = {k: json_safe(v) for k, v in (bound or {}).items()}
    except (Unsupported, RecursionError):
        return None
    return arguments if bound is not None and set(arguments) <= exposed else None


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


def _assigned(statement):
    """The names a doctest statement binds (``acc = Tally()``: acc)."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _imported(statement, namespace):
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


ARRAY_BUILDERS = ("array", "asarray")
"""numpy's array from nested lists: the numpy codec's JSON form is those lists."""


class Literals:
    """Names a session bound to a literal (``data = [1, 2, 3]``), put back into the calls
    that use them (``mean(data)`` is ``mean([1, 2, 3])``), as are the package's constants
    whose values are JSON (constants.py), unless the session bound their names."""

    def __init__(self, namespace=None):
        self.nodes, self.bound = {}, set()
        self.namespace = namespace if namespace is not None else {}

    def note(self, statement):
        """Remember what ``statement`` binds to a literal; forget what it rebinds."""
        self.bound |= stored(statement)
        for name in _assigned(statement):
            self.nodes.pop(name, None)
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            value = self.inline(statement.value)  # ``A = np.array([[1, 2]])`` too
            try:
                ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return
            self.nodes[statement.targets[0].id] = value

    def inline(self, node):
        """A copy of ``node`` whose names of literals are those literals, and whose arrays
        built from a literal (``np.array([[1, 2], [3, 4]])``) are that literal, the array
        codec's own JSON form, and whose arithmetic over numbers is the number it makes
        (``math.pi/4``: fold.py); ``node`` itself when there is none of these: parsed
        lines are shared and never changed."""
        node = inline_constants(node, self.namespace, self.bound)
        node = folded(node, self.namespace, self.bound)
        if not any(
            (isinstance(n, ast.Name) and n.id in self.nodes) or self._array(n) is not None
            for n in ast.walk(node)
        ):
            return node
        nodes, array = self.nodes, self._array

        class Put(ast.NodeTransformer):
            def visit_Name(self, name):
                if isinstance(name.ctx, ast.Load) and name.id in nodes:
                    return copy.deepcopy(nodes[name.id])
                return name

            def visit_Call(self, call):
                inner = array(call)
                return self.generic_visit(call) if inner is None else self.visit(inner)

        return Put().visit(copy.deepcopy(node))

    def _array(self, node):
        """The literal argument of ``np.array(literal)``, a pandas table built from literals
        as its JSON form (frames.py); None for any other node."""
        frame = frame_literal(node, self.namespace)
        if frame is not None:
            return frame
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            return None
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in ARRAY_BUILDERS):
            return None
        if not isinstance(func.value, ast.Name):
            return None
        module = self.namespace.get(func.value.id)
        if getattr(module, "__name__", None) != "numpy":
            return None
        argument = node.args[0]
        if isinstance(argument, ast.Name) and argument.id in self.nodes:
            return argument
        try:
            ast.literal_eval(argument)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None
        return argument


def examples_for(func, names, doc, signature, exposed):
    """Literal calls of ``func`` in its doctests, bound to parameter names.

    A call on a name the session bound itself (``acc.total()`` after ``acc = Tally()``) is
    a method of that object, not this function: its output belongs to the method.
    """
    found = []
    variables = set()
    namespace = dict(getattr(func, "__globals__", None) or {})
    literals = Literals(namespace)
    for example in _parsed(doc):
        if len(found) >= MAX_EXAMPLES:
            break
        statement = _statement(example.source)
        if statement is None:
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            _imported(statement, namespace)  # ``import numpy as np``: for its arrays
            continue
        variables |= _assigned(statement)
        literals.note(statement)
        if not isinstance(statement, ast.Expr):
            continue  # an assignment shows nothing
        shown, text, want = shown_as_text(statement.value, example.want)  # ``str(f(2))``
        match = call_in(shown, names)
        if match is None:
            continue
        wrapper, call = match[0] or text, match[1]
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(receiver, ast.Name) and receiver.id in variables:
            continue
        arguments = _bound(literals.inline(call), signature, exposed)
        if arguments is None:
            continue
        item = _item(arguments, wrapper, want.strip(), example.exc_msg)
        if item is None:
            continue
        if item["has_expected"]:
            item["line"] = example.source.strip()
        found.append(item)
    found.sort(key=lambda e: not e["has_expected"])
    return found


def _item(arguments, wrapper, want, exc_msg):
    """One example: the arguments and, when the session shows it, the expected value."""
    if exc_msg:
        return None
    item = {
        "arguments": arguments,
        "wrapper": wrapper,
        "origin": "doctest",
        "has_expected": False,
        "expected": None,
    }
    if not want:
        return item
    try:
        value = ast.literal_eval(want)
        if isinstance(value, (set, frozenset)):  # a set result, shown as one
            wrapper = "set"
        item["expected"] = json_safe(sorted(value) if wrapper == "set" else value)
        if wrapper in ("set", "frozenset"):
            item["wrapper"] = "set"
        item["has_expected"] = True
    except (ValueError, TypeError, SyntaxError, Unsupported, RecursionError, MemoryError):
        if wrapper is None and repr_shaped(want):
            # A library's own number or array printed as its constructor call:
            # validation compares what it shows (validate/reprs.py).
            item.update(expected=want, wrapper="repr", has_expected=True)
    return item
