"""Probe helper (runs INSIDE the target environment; standard library only): an array that a
session line builds with numpy's own functions over literals, in the numpy codec's JSON form.

``model.covars_ = np.tile(np.identity(2), (3, 1, 1))`` sets an attribute to an array that no
literal writes, and a session whose setup it is cannot be replayed without it (the receiver
was forgotten, and every later call on it met an object never set up). Such a value is made
here by calling the numpy functions the line names on its literal arguments, never by
evaluating text: a function of numpy's own namespace, not one that reads or writes files or
changes numpy's state, and a result of numbers small enough to travel as nested lists. The
codec then gives the callable an array again (``numpy:float64``), as the line gave it one.
"""

import ast
import sys

from .json_values import Unsupported, json_safe
from .session_names import resolve

MAX_ITEMS = 10_000
MAX_DEPTH = 4
# numpy functions that touch files, buffers or numpy's settings: never called here.
_NOT_PURE = frozenset(
    {
        "fromfile",
        "frombuffer",
        "fromregex",
        "genfromtxt",
        "load",
        "loadtxt",
        "memmap",
        "save",
        "savetxt",
        "savez",
        "savez_compressed",
        "set_printoptions",
        "setbufsize",
        "seterr",
        "seterrcall",
    }
)
_CODEC_DTYPES = frozenset(
    {
        *(f"int{bits}" for bits in (8, 16, 32, 64)),
        *(f"uint{bits}" for bits in (8, 16, 32, 64)),
        *(f"float{bits}" for bits in (16, 32, 64)),
        "complex64",
        "complex128",
        "bool",
    }
)
"""The item types the numpy codec rebuilds by name (runtime/decode.py): the fixed-size ones,
so that ``np.arange(24, dtype=np.int16)`` arrives as 16-bit integers again."""
# An array's methods that make another array of its numbers and change nothing else.
_ARRAY_METHODS = frozenset(
    {"reshape", "astype", "transpose", "ravel", "flatten", "squeeze", "copy", "swapaxes"}
)


class _NotBuilt(Exception):
    """The expression is not numpy's functions over literals."""


def array_value(node, written, namespace):
    """``(nested lists, codec)`` for the array ``node`` builds; None when it builds none.

    ``written`` is the value as the line wrote it, before the session put its literals in
    (``np.array(data)``, which ``node`` holds as ``[1, 2]``): only a line whose value is a
    call of numpy's makes an array."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not _numpy_call(written, namespace, numpy):
        return None
    filled = _filled(node, namespace, numpy)
    if filled is not None:
        return filled
    try:
        value = numpy.asarray(_value(node, namespace, numpy, 0))
    except (_NotBuilt, Exception):  # numpy refuses arguments in many ways of its own
        return None
    if value.dtype.kind not in "biuf" or value.size > MAX_ITEMS:
        return None
    try:
        data = json_safe(value.tolist())
    except Unsupported:  # nan or infinity: no JSON literal
        return None
    dtype = value.dtype.name
    return data, f"numpy:{dtype}" if dtype in _CODEC_DTYPES else "numpy"


MAX_FILLED = 50_000_000
"""Items of an array of one value at most: what the codec's ``{"shape", "fill"}`` makes."""
_FILLS = {"ones": 1, "zeros": 0, "full": None}


def _filled(node, namespace, numpy):
    """``({"shape": [...], "fill": value}, codec)`` for ``np.ones(shape, dtype=...)``,
    ``np.zeros`` or ``np.full(shape, value)`` past MAX_ITEMS: nibabel's guide builds
    ``np.ones((32, 32, 15, 100), dtype=np.int16)``, 1.5 million items that no list carries
    (the codec makes the array again, runtime/decode._numpy). None for any other line,
    and for a smaller array (it travels as its lists)."""
    if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    func = _numpy_function(node.func, namespace, numpy)
    name = getattr(func, "__name__", None)
    if name not in _FILLS or any(
        k.arg not in ("shape", "dtype", "fill_value") for k in node.keywords
    ):
        return None
    try:
        given = [_value(a, namespace, numpy, 1) for a in node.args]
        keywords = {k.arg: _value(k.value, namespace, numpy, 1) for k in node.keywords}
    except (_NotBuilt, Exception):
        return None
    names = ["shape", "fill_value", "dtype"] if name == "full" else ["shape", "dtype"]
    if len(given) > len(names) or any(k in names[: len(given)] for k in keywords):
        return None
    arguments = {**dict(zip(names[: len(given)], given, strict=True)), **keywords}
    shape = arguments.get("shape")
    shape = [shape] if type(shape) is int else shape
    if not isinstance(shape, (list, tuple)) or not shape:
        return None
    if not all(type(n) is int and n >= 0 for n in shape):
        return None
    fill = _FILLS[name] if name != "full" else arguments.get("fill_value")
    if type(fill) not in (int, float, bool):
        return None
    size = 1
    for n in shape:
        size *= n
    if size <= MAX_ITEMS or size > MAX_FILLED:
        return None
    item_type = arguments.get("dtype")
    try:  # the item type numpy's own function gives (``ones``: floats; ``full(s, 7)``: ints)
        one = func((1,), fill, item_type) if name == "full" else func((1,), item_type)
        dtype = one.dtype.name
    except Exception:  # a dtype numpy refuses for that value
        return None
    codec = f"numpy:{dtype}" if dtype in _CODEC_DTYPES else None
    if codec is None:
        return None
    return {"shape": list(shape), "fill": fill}, codec


def numpy_built(node, namespace):
    """Whether ``node`` is the kind of line ``array_value`` reads (numpy's function, or an
    array method over one), without building anything."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and _numpy_call(node, namespace, numpy)


def _numpy_call(node, namespace, numpy):
    """Whether ``node`` calls a numpy function, or an array method on such a call's result
    (``np.arange(24).reshape((2, 3, 4))``)."""
    while _array_method(node):
        node = node.func.value
    return isinstance(node, ast.Call) and _numpy_function(node.func, namespace, numpy) is not None


def _array_method(node):
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _ARRAY_METHODS
    )


def _numpy_function(node, namespace, numpy):
    """The function of numpy's own namespace that ``node`` names, else None."""
    func = resolve(node, namespace)
    name = getattr(func, "__name__", None)
    if not callable(func) or not isinstance(name, str) or name in _NOT_PURE:
        return None
    if getattr(numpy, name, None) is not func or getattr(func, "__module__", None) != "numpy":
        return None
    return func


def _value(node, namespace, numpy, depth):
    if depth > MAX_DEPTH:
        raise _NotBuilt
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        pass
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(item, namespace, numpy, depth + 1) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    item_type = _item_type(node, namespace, numpy)
    if item_type is not None:  # ``dtype=np.int16``
        return item_type
    if not isinstance(node, ast.Call):
        raise _NotBuilt
    if _array_method(node):
        array = _value(node.func.value, namespace, numpy, depth + 1)
        if not isinstance(array, numpy.ndarray):
            raise _NotBuilt
        func = getattr(array, node.func.attr)
    else:
        func = _numpy_function(node.func, namespace, numpy)
    if func is None or any(isinstance(a, ast.Starred) for a in node.args):
        raise _NotBuilt
    if any(k.arg is None for k in node.keywords):
        raise _NotBuilt
    args = [_value(a, namespace, numpy, depth + 1) for a in node.args]
    kwargs = {k.arg: _value(k.value, namespace, numpy, depth + 1) for k in node.keywords}
    if func not in (numpy.array, numpy.asarray) and not _small([*args, *kwargs.values()]):
        raise _NotBuilt  # ``np.ones(10**9)``: a shape or a count past what may be made here
    result = func(*args, **kwargs)
    if isinstance(result, numpy.ndarray) and result.size > MAX_ITEMS:
        raise _NotBuilt
    return result


def _item_type(node, namespace, numpy):
    """The numpy scalar type ``node`` names (``np.int16``, ``numpy.float32``), else None."""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    found = resolve(node, namespace)
    if isinstance(found, type) and issubclass(found, numpy.generic):
        return found
    return None


def _small(values):
    """Whether every number among ``values`` (nested lists and tuples too; arrays already
    made are bounded) is at most ``MAX_ITEMS`` in size."""
    for value in values:
        if isinstance(value, (list, tuple)):
            if not _small(value):
                return False
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if abs(value) > MAX_ITEMS:
                return False
    return True
