"""Probe helper (runs INSIDE the target environment; standard library only): the type an
unannotated parameter's docstring gives it, as an annotation the schema is built from.

In order: a type the words name (examples.documented_type: a class of the package, a
builtin, a function), an array in words (documented_array, here: the numpy codec), a pandas table
(frames.documented_frame), and a class the whole description names
(documented_class: "a :class:`~pkg.Geodesic` object").
"""

import inspect
import re
import sys

from .examples import documented_class, documented_type
from .frames import documented_frame

__all__ = ["documented_annotation", "documented_array"]


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
    first = re.split(r",(?![^(\[]*[)\]])|\s+or\s+|\|", (text or "").strip())[0]
    first = re.sub(r":\w+:|[`~*]", "", first).strip()
    if numpy is None or not first or not _ARRAY_TYPE.fullmatch(first):
        return None
    return numpy.ndarray
