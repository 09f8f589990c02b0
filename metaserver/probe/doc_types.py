"""Probe helper (runs INSIDE the target environment; standard library only): the type an
unannotated parameter's docstring gives it, as an annotation the schema is built from.

In order: a type the words name (documented_type: a class of the package, a builtin, a
function), an array in words (documented_array: the numpy codec), a pandas table
(frames.documented_frame), and a class the whole description names (documented_class:
"a :class:`~pkg.Geodesic` object"), found in the package's imported modules.
"""

import inspect
import re
import sys
import typing

from .docstrings import first_type
from .frames import documented_frame


def documented_annotation(name, types, docs, home):
    """What parameter ``name``'s docstring type (``types``) or description (``docs``) says
    it takes, for a parameter of a callable in module ``home``; ``empty`` when it names no
    class, function, array or table. A description that is all type words
    ("DataFrame or tuple of DataFrame", "ndarray") types a parameter with no type text
    too: a docstring that writes ``data: DataFrame`` has none."""
    text = types.get(name)
    found = documented_type(text, home) or documented_array(text) or documented_frame(text)
    if text is None:  # "data: DataFrame" (no space before the colon) reads as a description
        found = found or documented_array(docs.get(name)) or documented_frame(docs.get(name))
    found = found or documented_class(docs.get(name), home)
    return found or inspect.Parameter.empty


# An array in words: "ndarray", "np.array", "array_like", "(n, m) array", "2d array",
# "numpy.ndarray of shape (n,)", "np.array(dim_x, 1)", "ArrayLike", "npt.NDArray[float]".
_ARRAY_TYPE = re.compile(
    r"(?:\([^)]*\)\s*)?"  # a shape written first: "(n, m) array"
    r"(?:(?:\d|n)[- ]?d(?:imensional)?\s+|numpy\s+|square\s+)*"  # "2d", "2 dimensional"
    r"(?:(?:numpy|np|npt|numpy\.typing)\.)?"
    r"(?:nd)?array(?:[_ -]?like)?"
    r"(?:\s*[(\[][^)\]]*[)\]])?"  # "np.array(dim_x, 1)", "NDArray[float]"
    r"(?:\s+(?:of|with)\b.*)?",  # "of shape (n,)", "of floats"
    re.I,
)


def documented_array(text):
    """``numpy.ndarray`` when a parameter's docstring type is an array in words, first of
    its alternatives ("array_like, optional", "ndarray or None"; never "float or array"):
    a JSON list then arrives as an array (codec ``numpy``), as it would annotated. Only
    when the package has imported numpy itself: a package without it takes plain lists."""
    numpy = sys.modules.get("numpy")
    first = first_type(text)
    if numpy is None or not first or not _ARRAY_TYPE.fullmatch(first):
        return None
    return numpy.ndarray


# A parameter described as one class of the package, and nothing else: "a
# :class:`~pkg.geodesic.Geodesic` object" (Sphinx's role, the reST docstrings' usual way).
_CLASS_ROLE = re.compile(
    r"(?:an?\s+|the\s+)?:(?:py:)?class:`~?([\w.]+)`(?:\s+(?:object|instance))?\s*\.?", re.I
)


_TYPE_NAME = re.compile(r"~?([A-Za-z_][\w.]*)(?:\s*,\s*optional)?")
_CALLABLE_TYPES = {"callable", "function"}


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
