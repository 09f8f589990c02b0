"""Parameter codecs: JSON arguments -> the Python objects a target callable expects.

The probe names a codec for each parameter whose annotation has no plain JSON form (see
``ToolSpec.codecs``); the generated tool passes ``{parameter: codec}`` to ``invoke``, which
decodes each argument here before the call. A codec is ``"name"`` or ``"name:target"`` where
target is an import path (``pkg.mod:Class``) resolved lazily in the server's environment.

Every codec also accepts a handle descriptor (``{"handle": id}``) or the bare id, so an
object one tool returned can always be passed to another. Third-party libraries (numpy,
pandas, sympy, pint, networkx) are imported only when a codec that needs them runs: their
presence is then a property of the target environment, never of this module.
"""

from __future__ import annotations

import datetime
import importlib
import inspect
import math
import os
import sys
import sysconfig
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from .codecs import from_json
from .expressions import decode_expression
from .file_args import file_argument
from .handles import HANDLE_PREFIX, HandleTable
from .protocols import REAL_KEYS

__all__ = ["CODECS", "CodecError", "decode", "set_work_dir", "work_dir"]


class CodecError(ValueError):
    """An argument that the parameter's codec cannot turn into the expected object."""


_WORK_DIR: list[Path] = []


def set_work_dir(path: str | os.PathLike[str]) -> None:
    """Confine ``path`` parameters to ``path`` (the generated server's ``work/``)."""
    _WORK_DIR[:] = [Path(path).resolve()]


def work_dir() -> Path:
    """The directory path arguments are confined to; the current directory by default."""
    return _WORK_DIR[0] if _WORK_DIR else Path.cwd().resolve()


LENIENT = "?"
"""A codec name's prefix: only text is decoded, anything else passes as plain JSON."""


def decode(value: Any, codec: str | None, handles: HandleTable) -> Any:
    """Decode ``value`` for a parameter whose codec is ``codec`` (None: plain JSON).

    Raises:
        CodecError: the value does not have the codec's JSON form.
        KeyError: a handle that is unknown or was evicted.
    """
    if isinstance(value, dict) and isinstance(value.get("handle"), str):
        return from_json(value, handles)
    if codec is not None and (handles.holds_id(value) or (_takes_handle(codec) and _id(value))):
        return handles.get(value)  # a bare id, as clients often pass it; unknown ids say so
    if _class_attribute(value, codec):
        return _attribute(value["attribute"], codec.partition(":")[2])
    if codec is None or value is None:
        return from_json(value, handles)
    if codec.startswith(LENIENT):
        # Typed only by a documented example (``datetime(2019, 1, 14)``): the parameter
        # takes other values too (``closed(0, 3)`` as well as two dates), so only text,
        # the form that example sent, is decoded.
        if not isinstance(value, str):
            return from_json(value, handles)
        try:
            return decode(value, codec[len(LENIENT) :], handles)
        except CodecError:
            return value
    name, _, target = codec.partition(":")
    try:
        function = CODECS[name]
    except KeyError:
        raise CodecError(f"unknown codec {codec!r}") from None
    try:
        return function(from_json(value, handles), target)
    except CodecError:
        raise
    except (TypeError, ValueError, ArithmeticError, InvalidOperation) as exc:
        raise CodecError(f"cannot decode {_short(value)} as {codec}: {exc}") from exc


def _class_attribute(value: Any, codec: str | None) -> bool:
    """``{"attribute": NAME}`` for a class of the package (codecs new, handle and held)."""
    return (
        isinstance(value, dict)
        and set(value) == {"attribute"}
        and isinstance(value["attribute"], str)
        and codec is not None
        and codec.partition(":")[0] in ("new", "handle", "held")
    )


def _attribute(name: str, target: str) -> Any:
    """The instance a class holds as a public attribute (``Geodesic.WGS84``), else the one
    the module defining the class, then the package's top module, holds (``USD``, a
    ``Currency`` of ``moneyed``): the order the probe offers them in (probe/held.py)."""
    cls = _resolve(target)
    value = getattr(cls, name, None) if not name.startswith("_") else None
    if _already(value, cls):
        return value
    module = target.partition(":")[0]
    for holder in dict.fromkeys([module, module.partition(".")[0]]):
        value = getattr(importlib.import_module(holder), name, None)
        if name.startswith("_") or isinstance(value, type) or inspect.isroutine(value):
            continue
        if _already(value, cls):
            return value
    raise CodecError(f"{target} has no instance attribute {name!r}")


def _plain(value: Any, target: str) -> Any:
    """Codec ``held``: a parameter of plain JSON that also takes a held instance by name
    (``currency: str | Currency``, decoded above); anything else passes as it is."""
    return value


def _takes_handle(codec: str) -> bool:
    return codec.partition(":")[0] == "handle"


def _id(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(HANDLE_PREFIX)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _resolve(target: str) -> Any:
    """The class a codec names, by import path.

    Raises:
        CodecError: the path does not import (a class made per context keeps a
            ``__module__``/``__qualname__`` under which nothing is found): our codec's
            error, not the library's.
    """
    module_name, _, qualname = target.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split(".") if qualname else []:
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise CodecError(f"the codec's type {target} does not import: {exc}") from exc
    return obj


# ---------------------------------------------------------------- standard library


def _handle(value: Any, target: str) -> Any:
    raise CodecError(f"expected a handle ({{'handle': id}}) for {target or 'this parameter'}")


def _exact(value: Any) -> Any:
    """A real number as ``to_json`` returns it when a float would round it: its exact text."""
    if isinstance(value, dict) and set(value) == REAL_KEYS and isinstance(value["text"], str):
        return value["text"]
    return value


def _new(value: Any, target: str) -> Any:
    """A class built from its constructor's keyword arguments (a dict) or positions (a list);
    a number type from the exact text of a real that ``to_json`` returned."""
    cls = _resolve(target)
    value = _exact(value)
    if _already(value, cls):
        return value  # a type that only checks JSON's own values (a non-empty str, say)
    if isinstance(value, dict):
        return cls(**value)
    if isinstance(value, list):
        return cls(*value)
    return cls(value)


def _already(value: Any, cls: Any) -> bool:
    """Whether ``value`` is an instance of ``cls`` as it stands (``__instancecheck__``)."""
    try:
        return isinstance(cls, type) and isinstance(value, cls)
    except Exception:  # a metaclass whose check raises: build the object instead
        return False


# A target names a library's subclass of the standard type (pendulum's DateTime, Duration):
# the value is built as that class, whose methods the tool calls.


def _datetime(value: Any, target: str) -> datetime.datetime:
    cls = _resolve(target) if target else datetime.datetime
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return cls.fromtimestamp(value, tz=datetime.UTC)  # type: ignore[no-any-return]
    return cls.fromisoformat(_text(value))  # type: ignore[no-any-return]


def _date(value: Any, target: str) -> datetime.date:
    cls = _resolve(target) if target else datetime.date
    text = _text(value)
    return cls.fromisoformat(text[:10] if "T" in text else text)  # type: ignore[no-any-return]


def _time(value: Any, target: str) -> datetime.time:
    cls = _resolve(target) if target else datetime.time
    return cls.fromisoformat(_text(value))  # type: ignore[no-any-return]


def _timedelta(value: Any, target: str) -> datetime.timedelta:
    cls = _resolve(target) if target else datetime.timedelta
    if isinstance(value, dict):
        return cls(**value)  # type: ignore[no-any-return]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return cls(seconds=value)  # type: ignore[no-any-return]
    raise CodecError("a duration is a number of seconds or {'days': .., 'seconds': ..}")


def _decimal(value: Any, target: str) -> Decimal:
    value = _exact(value)
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return Decimal(str(value))
    raise CodecError("a decimal is a string or a number")


def _fraction(value: Any, target: str) -> Fraction:
    value = _exact(value)
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if isinstance(value, list) and len(value) == 2:
        return Fraction(value[0], value[1])
    raise CodecError("a fraction is a string such as '3/4', a number or [numerator, denominator]")


def _complex(value: Any, target: str) -> complex:
    if isinstance(value, dict):
        return complex(value.get("real", 0.0), value.get("imag", 0.0))
    if isinstance(value, str):
        return complex(value.replace(" ", ""))
    if isinstance(value, list) and len(value) == 2:
        return complex(value[0], value[1])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return complex(value)
    raise CodecError("a complex number is {'real': x, 'imag': y}, [x, y] or text like '1+2j'")


def _path(value: Any, target: str) -> Path:
    """A path inside the work directory; anything that leaves it is refused.

    A relative path stays as written where the process runs in the work directory (a
    generated server does): it names the same file, and a callable that reads the path
    itself sees what the client wrote (``path_splitter("this/thing.ext")`` splits
    ``this/thing.ext``, not the server's own folders)."""
    root = work_dir()
    text = _text(value)
    candidate = (root / text).resolve()
    if candidate != root and root not in candidate.parents:
        shipped = shipped_file(text)
        if shipped is not None and not os.access(shipped, os.W_OK):
            # A path may be written too: a shipped file only where nothing can change it
            # (the sandbox mounts the environment read-only).
            return Path(shipped)
        raise CodecError(f"path {value!r} is outside the server's work directory")
    written = Path(text)
    if not written.is_absolute() and ".." not in written.parts and _runs_in(root):
        return written
    return candidate


def _file(value: Any, target: str) -> str:
    """Codec ``file``: a path in the work directory, or content written there
    (file_args.py); confined as ``path`` is, and passed as text. A data file the
    environment's own packages ship is read where it lies (``shipped_file``)."""
    if not isinstance(value, (str, dict)):
        return value  # a list of nodes where the name alone said "path": no file
    shipped = shipped_file(value)
    if shipped is not None:
        return shipped
    return str(_path(file_argument(value, work_dir()), target))


def shipped_file(value: Any) -> str | None:
    """The absolute path ``value`` when it names a regular file inside this environment
    (``sys.prefix``), None otherwise.

    A library's functions hand out paths to the test and example data it ships (a
    ``get_testdata_file("CT_small.dcm")``), and its documented sessions pass them on to the
    readers; codec ``file`` is a parameter that only reads, and the environment is the
    packages' own files (read-only in the sandbox), so such a path is no way out of
    work/. Anything else absolute stays refused by ``_path``."""
    if not isinstance(value, str) or not os.path.isabs(value):
        return None
    prefix = Path(sys.prefix).resolve()
    candidate = Path(value).resolve()
    if prefix not in candidate.parents:
        candidate = _in_these_packages(Path(value))
    if candidate is None or prefix not in candidate.parents or not candidate.is_file():
        return None
    return str(candidate)


def _in_these_packages(path: Path) -> Path | None:
    """The same package file in this environment's site-packages, for a path into another
    environment's (the probe's analysis saw the environment where it was built: the data
    path ``os.path.join(data_path, 'example4d.nii.gz')`` it read there is the file of the
    same package here); None for a path into no site-packages."""
    parts = path.parts
    if "site-packages" not in parts:
        return None
    inside = parts[len(parts) - parts[::-1].index("site-packages") :]
    if not inside or ".." in inside:
        return None
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    return (site.joinpath(*inside)).resolve()


def _runs_in(root: Path) -> bool:
    try:
        return Path.cwd().resolve() == root
    except OSError:  # the current directory was removed
        return False


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise CodecError(f"expected text, got {type(value).__name__}")
    return value


def _enum(value: Any, target: str) -> Any:
    cls = _resolve(target)
    try:
        return cls(value)
    except ValueError:
        if isinstance(value, str) and value in cls.__members__:
            return cls[value]
        raise


def _record(value: Any, target: str) -> Any:
    """Dataclasses and named tuples: fields by name (a dict) or by position (a list)."""
    cls = _resolve(target)
    if isinstance(value, dict):
        return cls(**value)
    if isinstance(value, list):
        return cls(*value)
    raise CodecError(f"{target} is built from an object of its fields")


def _pydantic(value: Any, target: str) -> Any:
    return _resolve(target).model_validate(value)


def _set(value: Any, target: str) -> set[Any]:
    """A set from a JSON list, as a README's set literal writes it (``{"H2", "O2"}``);
    items that are lists become tuples, so that they hash."""
    return set(_items(value, "set"))


def _frozenset(value: Any, target: str) -> frozenset[Any]:
    return frozenset(_items(value, "frozenset"))


def _tuple(value: Any, target: str) -> tuple[Any, ...]:
    """A tuple from a JSON list (a callable that tests ``isinstance(shape, tuple)``)."""
    if not isinstance(value, list):
        raise CodecError(f"a tuple is a list of its items, got {type(value).__name__}")
    return tuple(value)


def _items(value: Any, kind: str) -> list[Any]:
    if not isinstance(value, list):
        raise CodecError(f"a {kind} is a list of its items, got {type(value).__name__}")
    return [_hashable(item) for item in value]


# ---------------------------------------------------------------- third-party libraries


def _numpy(value: Any, target: str) -> Any:
    numpy = importlib.import_module("numpy")
    if isinstance(value, dict) and "real" in value:
        return numpy.complex128(_complex(value, target))
    # ``numpy:float64``: the item type the docs name (probe/arguments.array_codec).
    dtype = target if target in _DTYPES else None
    if isinstance(value, dict) and set(value) == {"shape", "fill"}:
        return _filled(numpy, value, dtype)
    if dtype is None and type(value) in (int, bool):
        # ``IIDBootstrap(x, seed=1234)``: a parameter typed ``int | Generator`` checks for an
        # int, which a 0-d array is not; the docs passed the Python number, so does the codec
        return value
    try:
        array = numpy.asarray(value, dtype=dtype)
        if array.dtype.kind in "UO" and isinstance(value, list):
            # text among the numbers: NaN or infinities as the codec writes them? (only
            # then is every item looked at: an array of numbers pays nothing for it)
            array = numpy.asarray(_leaves_as_floats(value), dtype=dtype)
        return array
    except ValueError:
        if not (isinstance(value, list) and value and all(isinstance(v, list) for v in value)):
            raise
        # Ragged rows (numpy: "inhomogeneous shape"): a list of arrays, as a wavelet
        # decomposition's coefficients are, one array per level.
        return [numpy.asarray(row, dtype=dtype) for row in value]


MAX_FILLED = 50_000_000
"""Items of an array of one value at most (``{"shape": [...], "fill": 1}``)."""


def _filled(numpy: Any, value: dict[str, Any], dtype: str | None) -> Any:
    """An array of one value, from its shape and that value (probe/array_values._filled):
    an array too large to travel as lists, such as nibabel's ``np.ones((32, 32, 15, 100),
    dtype=np.int16)``."""
    shape, fill = value["shape"], value["fill"]
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise CodecError("an array's shape is a list of sizes (integers from 0)")
    if type(fill) not in (int, float, bool):
        raise CodecError("an array's fill is a number or a boolean")
    size = 1
    for n in shape:
        size *= n
    if size > MAX_FILLED:
        raise CodecError(f"an array of {size} items is more than {MAX_FILLED} may be")
    return numpy.full(tuple(shape), fill, dtype=dtype)


_DTYPES = frozenset(
    {
        *(f"int{bits}" for bits in (8, 16, 32, 64)),
        *(f"uint{bits}" for bits in (8, 16, 32, 64)),
        *(f"float{bits}" for bits in (16, 32, 64)),
        "complex64",
        "complex128",
        "bool",
    }
)
"""The item types ``numpy:DTYPE`` names: the fixed-size ones a doc's array was built with
(``np.arange(24, dtype=np.int16)``: probe/array_values.py) or its docstring names."""


def _dataframe(value: Any, target: str) -> Any:
    pandas = importlib.import_module("pandas")
    if isinstance(value, dict) and {"columns", "data"} <= set(value):
        frame = pandas.DataFrame(
            **{k: value[k] for k in ("data", "columns", "index") if k in value}
        )
    else:
        frame = pandas.DataFrame(value)
    for column in frame.columns[[dtype == "object" for dtype in frame.dtypes]]:
        frame[column] = _numbers_again(pandas, frame[column])
    return frame


def _series(value: Any, target: str) -> Any:
    pandas = importlib.import_module("pandas")
    if isinstance(value, dict) and {"data", "index"} <= set(value):
        series = pandas.Series(value["data"], index=value["index"], name=value.get("name"))
    else:
        series = pandas.Series(value)
    return _numbers_again(pandas, series) if series.dtype == "object" else series


_NOT_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _leaves_as_floats(value: Any) -> Any:
    """Nested lists of numbers whose NaN or infinities travelled as text (an array result
    handed back as an argument) as numbers again; any other value as it is."""
    leaves: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        else:
            leaves.append(item)
    texts = [v for v in leaves if isinstance(v, str)]
    if not texts or len(texts) == len(leaves) or not all(v in _NOT_FINITE for v in texts):
        return value
    if not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in leaves):
        return value

    def floats(item: Any) -> Any:
        if isinstance(item, list):
            return [floats(i) for i in item]
        return _NOT_FINITE[item] if isinstance(item, str) else item

    return floats(value)


def _numbers_again(pandas: Any, column: Any) -> Any:
    """A column of numbers whose NaN or infinities travelled as text (codecs.py writes
    ``"nan"``, JSON having no literal for them) as the float column it was; any other
    column as it is (a column of words that holds ``"nan"`` stays words)."""
    items = list(column)
    numbers = [isinstance(v, int | float) and not isinstance(v, bool) for v in items]
    if not any(numbers) or not all(
        n or v in _NOT_FINITE for n, v in zip(numbers, items, strict=True)
    ):
        return column
    return pandas.Series(
        [_NOT_FINITE[v] if isinstance(v, str) else v for v in items],
        index=column.index,
        name=column.name,
        dtype=float,
    )


def _sympy(value: Any, target: str) -> Any:
    """Text through SymPy's own parser; {'text': ...} as ``to_json`` returns it; numbers."""
    sympy = importlib.import_module("sympy")
    if isinstance(value, dict) and "text" in value:
        value = value["text"]
    if isinstance(value, str):
        parser = importlib.import_module("sympy.parsing.sympy_parser")
        return parser.parse_expr(value)
    return sympy.sympify(value, strict=True)


def _pint(value: Any, target: str) -> Any:
    """A quantity parsed by pint's own parser ('3 m/s'), or [magnitude, units]."""
    pint = importlib.import_module("pint")
    registry = pint.get_application_registry()
    if isinstance(value, list) and len(value) == 2:
        return registry.Quantity(value[0], value[1])
    if isinstance(value, dict) and "magnitude" in value:
        return registry.Quantity(value["magnitude"], value.get("units", ""))
    if isinstance(value, str):
        if target.endswith("Unit"):
            return registry.Unit(value)
        return registry.parse_expression(value)
    return registry.Quantity(value)


def _networkx(value: Any, target: str) -> Any:
    """A graph from ``{"nodes": [...], "edges": [[u, v] or {...}]}`` or an edge list."""
    networkx = importlib.import_module("networkx")
    directed = isinstance(value, dict) and bool(value.get("directed"))
    cls = _resolve(target) if target else (networkx.DiGraph if directed else networkx.Graph)
    graph = cls()
    nodes, edges = ([], value) if isinstance(value, list) else (value.get("nodes", []), None)
    for node in nodes:
        if isinstance(node, dict):
            attrs = dict(node)
            graph.add_node(_hashable(attrs.pop("id")), **attrs)
        else:
            graph.add_node(_hashable(node))
    for edge in edges if edges is not None else value.get("edges", []):
        if isinstance(edge, dict):
            attrs = dict(edge)
            u, v = _hashable(attrs.pop("source")), _hashable(attrs.pop("target"))
            graph.add_edge(u, v, **attrs)
        else:
            u, v, *rest = edge
            graph.add_edge(_hashable(u), _hashable(v), **(rest[0] if rest else {}))
    return graph


def _hashable(value: Any) -> Any:
    """JSON lists as tuples: a node like (0, 1) comes back from JSON as [0, 1]."""
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


CODECS: dict[str, Callable[[Any, str], Any]] = {
    "handle": _handle,
    "new": _new,
    "held": _plain,
    "datetime": _datetime,
    "date": _date,
    "time": _time,
    "timedelta": _timedelta,
    "decimal": _decimal,
    "fraction": _fraction,
    "complex": _complex,
    "path": _path,
    "file": _file,
    "enum": _enum,
    "dataclass": _record,
    "namedtuple": _record,
    "pydantic": _pydantic,
    "numpy": _numpy,
    "dataframe": _dataframe,
    "series": _series,
    "sympy": _sympy,
    "pint": _pint,
    "networkx": _networkx,
    "expression": decode_expression,
    "set": _set,
    "frozenset": _frozenset,
    "tuple": _tuple,
}
"""Codec name -> decoder(value, target). The probe emits only these names."""
