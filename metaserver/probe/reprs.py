"""Probe helper (runs INSIDE the target environment; standard library only): whether a
doctest's output is a value's constructor-call repr.

``Fraction(1, 3)``, ``mpf('0.5')``, ``array([1, 2])``, ``Point(x=1, y=2)``: a library's own
number, array or record printed as its call, which validation compares as shown text
(validate/reprs.py). Also imported by the host's readers of the repository's own text
(agents/repo_docs/doc_examples.py). Imports nothing else of the probe.
"""

import ast

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
