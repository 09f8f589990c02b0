"""Probe helper (runs INSIDE the target environment; standard library only): arguments as
scientists pass them, for parameters the annotation alone leaves without a codec.

``refined_parameter`` is asked once per parameter, after its schema, default and
description are known (members.describe_callable):

- a parameter that takes a function (``Callable`` annotated, or documented ``callable``,
  ``function``) takes an expression in named variables (codec ``expression``,
  runtime/expressions.py); the names come from the callable's documented signature
  ("f : callable f(x, *args)": ``x``), else from the annotation's arity, else ``x``;
- one annotated or documented as a set, frozenset or tuple gets the codec that builds one
  from a JSON list (``{"H2", "O2"}`` in a README arrives as a list);
- an untyped one gets the schema its documented type words give ("int or tuple of ints":
  an integer or an array), else its default's JSON type, else an explicit "any JSON
  value" description: never a bare ``{}``.
"""

import ast
import collections.abc as abc
import doctest
import inspect
import re
import sys
import typing

__all__ = [
    "ANY_JSON",
    "array_codec",
    "container_codec",
    "container_typed",
    "file_schema",
    "function_variables",
    "reads_file",
    "refined_parameter",
    "takes_function",
    "words_schema",
]

ANY_JSON = "Any JSON value: nothing declares this parameter's type."

_FUNCTION_WORDS = re.compile(r"^\W*(?:callable|function|func)\b", re.I)
# A documented call signature: "f(x, *args)", "``func(x, a, b)``", "fun(t, y) -> float".
_SIGNATURE = re.compile(r"\b[A-Za-z_]\w*\(\s*(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)")
_VARIABLES = ("x", "y", "z")

_CONTAINERS = {set: "set", frozenset: "frozenset", tuple: "tuple", abc.Set: "set"}
_CONTAINER_WORDS = re.compile(r"^\W*(set|frozenset|tuple)\b(?!\s*(?:of\s+)?\()", re.I)

_TYPE_WORDS = {
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "scalar": "number",
    "real": "number",
    "str": "string",
    "string": "string",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "tuple": "array",
    "sequence": "array",
    "iterable": "array",
    "set": "array",
    "array": "array",
    "array_like": "array",
    "array-like": "array",
    "ndarray": "array",
    "dict": "object",
    "mapping": "object",
    "none": "null",
}


def refined_parameter(
    annotation, type_text, default, schema, codec, module_name, said=None, name=""
):
    """(schema, codec, description) of one parameter, refined as the module docstring says;
    ``default`` is ``inspect.Parameter.empty`` for a required parameter, ``said`` its
    documented description (returned unless the refinement says more)."""
    if codec == "numpy":
        return schema, array_codec(type_text), said
    if codec is not None:
        return schema, codec, said
    if takes_function(annotation, type_text):
        variables = function_variables(annotation, type_text, said)
        described = dict(schema, description=said) if said else schema
        schema, codec = function_schema(variables, module_name, described)
        return schema, codec, schema["description"]
    if reads_file(name, type_text, said) and (_untyped(schema) or schema.get("type") == "string"):
        return file_schema(schema), "file", said
    container = container_codec(annotation, type_text)
    if container is not None:
        return (dict(schema, type="array") if _untyped(schema) else schema), container, said
    if not _untyped(schema):
        return schema, None, said
    typed = words_schema(type_text) or _default_schema(default)
    if typed:
        return dict(schema, **typed), None, said
    if said:
        return schema, None, said
    return dict(schema, description=ANY_JSON), None, ANY_JSON


# A parameter that names a file it reads: by its name, or by its documented type or words.
_FILE_NAME = re.compile(
    r"(?:^|_)(?:file|files|filename|fname|filepath|infile|path|fp|fh)(?:_|$)|^(?:file|path)",
    re.I,
)
_FILE_WORDS = re.compile(
    r"\b(?:file ?names?|file ?paths?|paths? (?:to|of) (?:an? |the )?(?:\w+ ){0,2}files?|"
    r"(?:input|data|text|output) files?|file[- ]like|file objects?|path[- ]like|"
    r"os\.PathLike|(?:the )?files? to (?:read|load|parse|open))\b",
    re.I,
)
_NOT_FILE = re.compile(r"\b(?:list|sequence|nodes?|edges?|vertices|tuple|array)\b", re.I)
# "The full file name (without path)": a name the callable resolves itself (its own data
# folder), which a path in the work directory would break.
_NO_PATH = re.compile(
    r"\b(?:without (?:the |its |a |any )?(?:director(?:y|ies)|path|folder)s?|"
    r"not (?:a |the )?(?:full |absolute )?path)\b",
    re.I,
)
_WRITES = re.compile(r"\b(?:writ(?:e|es|ten)|save[sd]?|output|dump(?:s|ed)?)\b", re.I)


def reads_file(name, type_text, said):
    """Whether a parameter names a file it reads: a file's name ("fname", "input_path")
    or documented words ("Path to the output file of the run"); one whose words say the
    callable writes it is an output path, given as text."""
    words = f"{type_text or ''} {said or ''}"
    if _WRITES.search(words) and not re.search(r"\b(?:read|load|parse)", words, re.I):
        return False
    typed = words_schema(type_text)
    if typed is not None and typed != {"type": "string"}:
        return False  # "path : list of nodes" is a graph's path, not a file's
    if _NOT_FILE.search(said or "") and not _FILE_WORDS.search(words):
        return False
    if _NO_PATH.search(words):
        return False
    return bool(_FILE_NAME.search(name or "")) or bool(_FILE_WORDS.search(words))


def file_schema(schema):
    """A file: its path in the work directory, or its content (text, or base64)."""
    named = {"name": {"type": "string", "description": "The file's name (its extension)."}}
    refined = {
        "anyOf": [
            {"type": "string", "description": "A path in the work directory (work://NAME)."},
            {
                "type": "object",
                "properties": {"content": {"type": "string"}, **named},
                "required": ["content"],
                "description": "The file's text.",
            },
            {
                "type": "object",
                "properties": {"base64": {"type": "string"}, **named},
                "required": ["base64"],
                "description": "The file's bytes, base64-encoded.",
            },
        ],
        "description": (
            "A file: a path in the server's work directory (work://NAME, or NAME; the "
            'package\'s data files are there), or its content as {"content": text} or '
            '{"base64": data}, with an optional "name" whose extension says the format.'
        ),
    }
    if schema.get("description"):
        refined["description"] = f"{schema['description']} {refined['description']}"
    if "default" in schema:
        refined["default"] = schema["default"]
    return refined


_DTYPES = {
    "float": "float64",
    "floats": "float64",
    "real": "float64",
    "int": "int64",
    "ints": "int64",
    "integer": "int64",
    "integers": "int64",
    "complex": "complex128",
    "bool": "bool",
    "boolean": "bool",
}


def array_codec(type_text):
    """``numpy``, or ``numpy:DTYPE`` when the documented array names its items' type
    ("array_like of float", "(N,) int ndarray"): nested lists of integers then arrive as
    the floats the callable computes with."""
    first = re.split(r"\s+or\s+|\|", _plain(type_text))[0].lower()
    if "array" not in first:
        return "numpy"
    for word in re.findall(r"[a-z]+", first):
        if word in _DTYPES:
            return f"numpy:{_DTYPES[word]}"
    return "numpy"


def takes_function(annotation, type_text):
    """Annotated ``Callable`` (bare or ``Callable[[float], float]``), or documented as one."""
    origin = typing.get_origin(annotation) or annotation
    if origin is abc.Callable or annotation is typing.Callable:
        return True
    return bool(type_text) and bool(_FUNCTION_WORDS.match(type_text))


def function_variables(annotation, type_text, description=None):
    """The variable names an expression for this parameter is written in."""
    for text in (type_text, description):
        match = _SIGNATURE.search(text or "")
        if match is None:
            continue
        names = []
        for name in (n.strip() for n in match.group(1).split(",")):
            if name.startswith("*"):
                break
            if name not in names and not name.startswith("_"):
                names.append(name)
        if names:
            return names
    args = typing.get_args(annotation)
    count = len(args[0]) if args and isinstance(args[0], list) else 1
    if count <= len(_VARIABLES):
        return list(_VARIABLES[: max(count, 1)])
    return [f"x{i}" for i in range(count)]


def function_schema(variables, module_name, schema):
    """The expression schema (text first, then the explicit form, then a handle to a
    function another tool returned) and its codec ``expression:VARS@MODULES``."""
    modules = [module_name.partition(".")[0]] if module_name else []
    if "numpy" in sys.modules and "numpy" not in modules:
        modules.append("numpy")  # a numpy-based library: vectorised functions by name
    names = ", ".join(variables)
    where = ", ".join([*modules, "math"])
    shown = "np.sqrt" if "numpy" in modules else "math.sqrt"
    example = " + ".join(f"{v}**2" for v in variables)
    how = (
        f'A function of {names}, written as an expression in {names} (e.g. "{example}", '
        f"\"exp(-{variables[0]}**2)\"): numbers, arithmetic, comparisons, 'a if c else b' and "
        f"calls of the public functions of {where} by name (sin, {shown}); no imports, "
        "lambdas or attributes of values."
    )
    said = schema.get("description")
    text = {"type": "string", "description": f"An expression in {names}."}
    explicit = {
        "type": "object",
        "properties": {
            "expression": {"type": "string"},
            "variables": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["expression"],
        "description": "An expression in other variable names, listed in call order.",
    }
    handle = {
        "type": "object",
        "properties": {"handle": {"type": "string"}},
        "required": ["handle"],
        "description": "A handle to a function another tool returned.",
    }
    refined = {"anyOf": [text, explicit, handle], "description": f"{said} {how}" if said else how}
    if "default" in schema:
        refined["default"] = schema["default"]
    return refined, f"expression:{','.join(variables)}@{','.join(modules)}"


def container_codec(annotation, type_text):
    """``set``, ``frozenset`` or ``tuple`` for a parameter annotated (``set[str]``,
    ``tuple[int, int]``, ``AbstractSet``) or documented ("set of str", "tuple") as one."""
    origin = typing.get_origin(annotation) or annotation
    try:
        if origin in _CONTAINERS:
            return _CONTAINERS[origin]
    except TypeError:  # an unhashable annotation object
        return None
    if annotation is not inspect.Parameter.empty:
        return None  # annotated otherwise: the annotation decides
    match = _CONTAINER_WORDS.match(_plain(type_text))
    if match is None or _alternatives(type_text):
        return None
    return match.group(1).lower()


def words_schema(type_text):
    """The JSON Schema the documented type words give ("float", "int or tuple of ints,
    optional"), or None when a word is not a plain JSON type's."""
    if not type_text:
        return None
    kinds, choices = [], []
    for part in re.split(r"\s+or\s+|\|", _plain(type_text)):
        named = _choices(part.strip())  # numpydoc's ``{'scale', 'auto'} or float``
        if named is not None:
            choices += [value for value in named if value not in choices]
            continue
        word = re.split(r"\s+of\b|\s*\[|\s*\(", part.strip())[0].strip().lower()
        word = word.removeprefix("python ").strip()
        kind = _TYPE_WORDS.get(word)
        if kind is None:
            return None
        if kind not in kinds:
            kinds.append(kind)
    options = ([{"enum": choices}] if choices else []) + [{"type": kind} for kind in kinds]
    if not options:
        return None
    # as render.python_type reads it
    return options[0] if len(options) == 1 else {"anyOf": options}


def _choices(text):
    """The values a type's ``{'a', 'b'}`` (or one quoted ``'auto'``) allows, in the order
    written; None when the text is no such literal."""
    if not (text.startswith("{") and text.endswith("}")) and not re.fullmatch(
        r"'[^']*'|\"[^\"]*\"", text
    ):
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    items = node.elts if isinstance(node, ast.Set) else [node]
    values = []
    for item in items:
        if not isinstance(item, ast.Constant) or not isinstance(
            item.value, (str, int, float, type(None))
        ):
            return None
        if isinstance(item.value, bool) or item.value in values:
            return None
        values.append(item.value)
    return values


def _plain(type_text):
    """The type words without markup, ``optional`` or a default ("int, default 3")."""
    text = re.sub(r":\w+:|[`~*]", "", type_text or "")
    text = re.split(r",\s*(?:optional|default\b)|\s*\(optional\)", text, maxsplit=1)[0]
    return text.strip().rstrip(",").strip()


def _alternatives(type_text):
    return bool(re.search(r"\s+or\s+|\|", _plain(type_text)))


def _default_schema(default):
    """The JSON type of a default value; None for None, a missing or an odd default."""
    if isinstance(default, bool):
        return {"type": "boolean"}
    if isinstance(default, (int, float)):
        return {"type": "number"}  # a default of 1 seldom refuses 0.5
    if isinstance(default, str):
        return {"type": "string"}
    return None


def _untyped(schema):
    return not any(key in schema for key in ("type", "anyOf", "oneOf", "enum", "$ref", "const"))


def container_typed(params, doc, names, signature):
    """Give the ``set`` (``frozenset``, ``tuple``) codec to each parameter without one that a
    doctest call of this callable (by one of ``names``) passes such a literal (``{"H2",
    "O2"}``, ``set(...)``, ``(rows, columns)``): the example arrives as a JSON list, and the
    callable wants what the line wrote (one may check ``isinstance(a, tuple)``)."""
    found = {}
    for source in _doctest_sources(doc):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _called(call) not in names:
                continue
            try:
                bound = signature.bind_partial(
                    *call.args, **{k.arg: k.value for k in call.keywords if k.arg}
                ).arguments
            except TypeError:
                continue
            for name, node in bound.items():
                kind = _container_literal(node)
                if kind is not None:
                    found.setdefault(name, kind)
    for param in params:
        kind = found.get(param["name"])
        if kind is None or param["codec"] is not None:
            continue
        schema = param["json_schema"]
        if _untyped(schema) or schema.get("type") == "array":
            schema = {k: v for k, v in schema.items() if v != ANY_JSON}
            param["json_schema"], param["codec"] = dict(schema, type="array"), kind
            if param.get("description") == ANY_JSON:
                param["description"] = None


def _doctest_sources(doc):
    try:
        examples = doctest.DocTestParser().get_examples(doc or "")
    except ValueError:  # a malformed session
        return []
    return [example.source for example in examples]


def _called(call):
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _container_literal(node):
    if isinstance(node, ast.Set):
        return "set"
    if isinstance(node, ast.Tuple) and node.elts:
        return "tuple"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("set", "frozenset") and len(node.args) <= 1 and not node.keywords:
            return node.func.id
    return None
