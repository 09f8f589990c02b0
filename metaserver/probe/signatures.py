"""Probe helper (runs INSIDE the target environment; standard library only): the signature a
C extension writes on its docstring's first line.

A type compiled without Argument Clinic has no ``__text_signature__``: ``inspect.signature``
refuses its class and its methods, though each docstring opens with the call
(``append(item, /)``, ``bitarray(initializer=0, /, endian='big', buffer=None) -> bitarray``),
which is what a reader of ``help()`` goes by. Read here, such methods become tools and
README lines that call them (``a.append(1)``) become session steps. A default the line
cannot write as a literal (``stop=<end>``) ends the signature there: the parameters before
it are still callable as written, the ones after it are left to the default.
"""

import ast
import inspect
import re


def text_signature(obj, name, method=False):
    """The signature ``obj``'s docstring gives on its first line for a call of ``name``
    (with ``self`` first when ``method``), or None when the line is not such a call."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return None
    first = doc.strip().split("\n", 1)[0].strip()
    match = re.fullmatch(rf"{re.escape(name)}\((.*)\)\s*(?:->\s*(\S.*))?", first)
    if match is None:
        # ``Wavelet(name, filter_bank=None) object describe properties of``: the call, then
        # the sentence it opens (Cython's classes write so)
        inside = _called_with(first, name)
        if inside is None:
            return None
        match = re.fullmatch(r"(.*)()", inside)
        assert match is not None
    arguments = _arguments(match.group(1))
    if arguments is None:
        return None
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)] if method else []
    try:
        parameters += _parameters(arguments)
        returned = match.group(2) or inspect.Signature.empty  # ``-> bitarray``: as text
        return inspect.Signature(parameters, return_annotation=returned)
    except (ValueError, TypeError):
        return None


def _called_with(line, name):
    """The text inside the parentheses of a call of ``name`` that opens ``line`` and is
    followed by a word (prose), or None."""
    if not line.startswith(name + "("):
        return None
    depth = 0
    for at in range(len(name), len(line)):
        depth += {"(": 1, ")": -1}.get(line[at], 0)
        if depth == 0:
            rest = line[at + 1 :]
            if rest[:1] == " " and rest.strip()[:1].isalpha():
                return line[len(name) + 1 : at]
            return None
    return None


def _arguments(text):
    """The ``ast.arguments`` of a parameter list, cut before the first piece that is not
    Python with a literal default (``stop=<end>``), keeping a later ``/`` so the kept
    parameters stay positional-only."""
    # ``$module``, ``$self``: Argument Clinic's bound first parameter, never passed
    pieces = [p.strip() for p in text.split(",") if p.strip() and not p.strip().startswith("$")]
    kept = []
    for at, piece in enumerate(pieces):
        if piece in ("/", "*") or _parses([*kept, piece]):
            kept.append(piece)
            continue
        if any(_required(rest) for rest in pieces[at:]):
            return None  # a parameter the call needs would be left out
        if kept and "/" in pieces[at:] and not {"/", "*"} & set(kept):
            kept.append("/")
        break
    while kept and kept[-1] == "*":
        kept.pop()
    return _parses(kept)


def _required(piece):
    """Whether a piece of a parameter list names a parameter without a default."""
    return "=" not in piece and piece not in ("/", "*") and not piece.startswith("*")


def _parses(pieces):
    """The ``ast.arguments`` of these pieces, when they parse and their defaults are
    literals; None otherwise."""
    try:
        arguments = ast.parse(f"def _({', '.join(pieces)}): pass").body[0].args
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                ast.literal_eval(default)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    return arguments


def _parameters(arguments):
    """inspect.Parameters for ``arguments``, whose defaults must be literals. Without a
    ``/`` every parameter before ``*`` is positional-only: the docstring predates the
    marker, and an older C function parses a tuple (``sysinfo() takes no keyword
    arguments``), which a positional call always suits."""
    kind = inspect.Parameter
    positional = [(a, kind.POSITIONAL_ONLY) for a in arguments.posonlyargs]
    either = kind.POSITIONAL_OR_KEYWORD if arguments.posonlyargs else kind.POSITIONAL_ONLY
    positional += [(a, either) for a in arguments.args]
    defaults = [kind.empty] * (len(positional) - len(arguments.defaults))
    defaults += [ast.literal_eval(d) for d in arguments.defaults]
    out = [kind(a.arg, k, default=d) for (a, k), d in zip(positional, defaults, strict=True)]
    if arguments.vararg is not None:
        out.append(kind(arguments.vararg.arg, kind.VAR_POSITIONAL))
    for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        default = kind.empty if d is None else ast.literal_eval(d)
        out.append(kind(a.arg, kind.KEYWORD_ONLY, default=default))
    if arguments.kwarg is not None:
        out.append(kind(arguments.kwarg.arg, kind.VAR_KEYWORD))
    return out
