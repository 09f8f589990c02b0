"""Probe helper (runs INSIDE the target environment; standard library only): the signature
the guides' calls write for a compiled callable that states none.

An older C extension's class and methods have neither ``__text_signature__`` nor a docstring
that opens with the call (``Satrec.twoline2rv``: "Initialize the record from two lines of
TLE text"), so ``inspect.signature`` and ``signatures.text_signature`` both refuse them,
though the README calls them (``Satrec()``, ``Satrec.twoline2rv(s, t)``,
``satellite.sgp4(jd, fr)``).
Their parameters are read from those calls: the positional arguments every call passes, as
positional-only parameters named after the names passed where the calls agree (else
``arg1``, ...), and the keywords every call uses; all required, since nothing says what a
parameter some calls leave out defaults to (a call that passes more fits no tool). Only a
callable that states no signature is read so.
"""

import ast
import doctest
import inspect
import keyword

_TEXTS = []  # the README's and guides' code (set_texts)
_CALLS = {}  # called attribute -> the calls; None: not read yet


def set_called_texts(texts):
    """The README's and guides' code (members.set_guides)."""
    _TEXTS[:] = list(texts)
    _CALLS.clear()


def guide_signature(name, method=False):
    """The signature the guides' calls of ``name(...)`` or ``x.name(...)`` write (with
    ``self`` first when ``method``), or None when they never call it or pass what no
    signature can say."""
    if not _CALLS:
        _CALLS.update(_calls(_TEXTS))
        _CALLS.setdefault(None, [])  # read, even when nothing was found
    calls = _CALLS.get(name, [])
    if not calls or any(_unreadable(call) for call in calls):
        return None
    least = min(len(call.args) for call in calls)
    names, taken = [], {"self"}
    for place in range(least):
        spelled = {c.args[place].id for c in calls if isinstance(c.args[place], ast.Name)}
        chosen = spelled.pop() if len(spelled) == 1 else f"arg{place + 1}"
        if chosen in taken or keyword.iskeyword(chosen) or chosen.startswith("_"):
            chosen = f"arg{place + 1}"
        taken.add(chosen)
        names.append(chosen)
    kind = inspect.Parameter.POSITIONAL_ONLY
    parameters = [inspect.Parameter("self", kind)] if method else []
    parameters += [inspect.Parameter(spelled, kind) for spelled in names]
    everywhere = set.intersection(*({k.arg for k in c.keywords} for c in calls))
    for spelled in sorted(everywhere - taken):
        parameters.append(inspect.Parameter(spelled, inspect.Parameter.KEYWORD_ONLY))
    try:
        return inspect.Signature(parameters)
    except ValueError:
        return None


def _unreadable(call):
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def _calls(texts):
    found = {}
    for text in texts:
        for tree in _trees(text):
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    found.setdefault(node.func.attr, []).append(node)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    found.setdefault(node.func.id, []).append(node)  # ``Satrec()``
    return found


def _trees(text):
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return []
    trees = []
    for example in examples:
        try:
            trees.append(ast.parse(example.source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return trees
