"""Probe helper (runs INSIDE the target environment; standard library only): types -> schemas.

``parameter_schema`` turns an annotation into the JSON Schema of a tool parameter and, when
the value is not plain JSON, the name of the runtime codec that rebuilds the object
(``metaserver/runtime/decode.py``). Third-party types are recognised by module and class
name, so nothing here imports numpy, pandas, sympy, pint or networkx.

A parameter with no annotation is typed by the values its examples pass
(``typed_by_examples``): an instance a class holds (``Geodesic.WGS84``) or a module of the
package holds (``USD``: held.py) takes that class; the example shows it by name,
``{"attribute": "WGS84"}``, which the class's codec decodes.
"""

import collections.abc as abc
import dataclasses
import datetime
import decimal
import enum
import fractions
import inspect
import os
import pathlib
import types
import typing

from .held import module_instances
from .json_values import JSON_SCALARS, Unsupported
from .stdlib_values import VALUE_CLASSES
from .symbols import TEXT_CODEC, symbol_class

# A handle as the descriptor a tool returned, or its bare id, as clients often pass it
# (``runtime/decode.py`` takes both; the pattern is ``runtime/handles.HANDLE_PREFIX``, which
# the probe cannot import: tests/probe/test_schemas.py holds the two together). ``required``
# and ``properties`` speak of objects only, ``pattern`` of strings only.
HANDLE_SCHEMA = {
    "type": ["object", "string"],
    "properties": {"handle": {"type": "string"}},
    "required": ["handle"],
    "pattern": "^h_",
}


NUMPY_SCHEMA = {
    "anyOf": [
        {"type": ["array", "number", "boolean"], "description": "An array as nested lists."},
        {
            "type": "object",
            "properties": {
                "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "fill": {"type": ["number", "boolean"]},
            },
            "required": ["shape", "fill"],
            "additionalProperties": False,
            "description": "An array of one value, too large to write out: its shape and "
            'the value of every item ({"shape": [32, 32, 15, 100], "fill": 1}).',
        },
        HANDLE_SCHEMA,
    ]
}


def target_of(cls):
    return f"{cls.__module__}:{cls.__qualname__}"


def handle_schema(cls):
    name = getattr(cls, "__qualname__", None) or repr(cls)
    return dict(HANDLE_SCHEMA, description=f"A handle to a {name}, returned by another tool.")


def with_handle(schema, cls):
    """A JSON form, or a handle to an object of ``cls`` that a tool returned."""
    return {"anyOf": [schema, handle_schema(cls)]}


def with_attributes(schema, cls):
    """``schema``, or one of the instances the class itself holds: ``{"attribute": "WGS84"}``
    for ``Geodesic.WGS84`` (the receiver a doctest session may use; runtime/decode.py), or
    that a module of the package holds (``{"attribute": "USD"}``: held.py)."""
    arm = held_arm(cls)
    if arm is None:
        return schema
    arms = schema["anyOf"] if set(schema) == {"anyOf"} else [schema]
    return {"anyOf": [*arms, arm]}


def held_arm(cls):
    """The schema arm ``{"attribute": NAME}`` of the instances of ``cls`` that the class or
    a module of its package holds; None when there are none."""
    named = instance_attributes(cls)
    held = module_instances(cls, skip=named)
    if not named and not held:
        return None
    description = f"An instance {cls.__qualname__} holds as a class attribute."
    if held:
        where = " or ".join(dict.fromkeys([cls.__module__, cls.__module__.partition(".")[0]]))
        description = f"An instance of {cls.__qualname__} held by {cls.__qualname__} or {where}."
    return {
        "type": "object",
        "properties": {"attribute": {"enum": named + held}},
        "required": ["attribute"],
        "additionalProperties": False,
        "description": description,
    }


def instance_attributes(cls, limit=20):
    """Public class attributes of ``cls`` that hold instances of it (``Geodesic.WGS84``)."""
    found = []
    try:
        names = sorted(vars(cls))
    except TypeError:
        return found
    for name in names:
        if name.startswith("_") or len(found) >= limit:
            continue
        try:
            value = inspect.getattr_static(cls, name)
            if isinstance(value, cls) and not inspect.isroutine(value):
                found.append(name)
        except Exception:  # noqa: S112  (an attribute that cannot be read is not offered)
            continue
    return found


def parameter_schema(annotation, ctor_schema=None):
    """(schema, codec) of a parameter; codec None means plain JSON.

    ``ctor_schema(cls)`` may return the object schema of a class's constructor arguments, for
    classes of the target package that tools can build from JSON (codec ``new``).
    """
    try:
        return schema_for(annotation), None
    except Unsupported:
        pass
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return parameter_schema(args[0], ctor_schema)
    if _is_union(origin):
        return _union(args, ctor_schema)
    if isinstance(origin, type):  # NDArray[...], list-like generics of a class
        annotation = origin
    if isinstance(annotation, typing.TypeVar):
        return {}, None
    if not isinstance(annotation, type) or isinstance(annotation, types.GenericAlias):
        raise Unsupported(getattr(annotation, "__name__", None) or repr(annotation))
    try:
        return class_schema(annotation, ctor_schema)
    except TypeError as exc:  # an odd class object that issubclass() refuses
        raise Unsupported(repr(annotation)) from exc


def _is_union(origin):
    return origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType)


def _union(args, ctor_schema):
    """Plain arms stay plain; one codec among the arms decodes the whole union."""
    for arg in args:
        # numpy's ArrayLike and `ndarray | float`: an array (or scalar) from nested lists.
        if (getattr(arg, "__module__", None) or "").partition(".")[0] == "numpy":
            return NUMPY_SCHEMA, "numpy"
    schemas, codecs, handles, plain, objects, classes = [], [], [], [], [], []
    for arg in args:
        if sentinel(arg):
            continue  # ``val: str | UndefinedType = UNDEFINED``: the default, never sent
        try:
            schema, codec = parameter_schema(arg, ctor_schema)
        except Unsupported:
            continue
        if codec and codec.startswith("handle"):
            handles.append(schema)
            classes.append(arg)
            continue
        if codec and codec.startswith("new:") and _checks_only(arg, schema):
            # A class built from no argument only checks values (an arm of ``Number | Word``
            # whose metaclass tests isinstance): beside other arms it decodes nothing.
            schemas.append({})
            continue
        if codec and codec.startswith("new:"):
            classes.append(arg)
        schemas.append(schema.get("anyOf", [schema])[0] if codec else schema)
        if codec:
            codecs.append(codec)
            objects.append(schemas[-1].get("type") == "object")
        else:
            plain.append(schema)
    distinct = list(dict.fromkeys(codecs))
    scalar = any(s.get("type") not in (None, "null", "object") for s in plain)
    if scalar and (len(distinct) > 1 or (objects and all(objects))):
        # Classes JSON builds from an object beside a plain arm (``str | SplitResult``, or
        # several such classes): no codec decodes the documented text, which reaches the
        # callable as it is; a handle is replaced by its object, as beside classes only a
        # handle gives.
        return _held_too({"anyOf": [*plain, HANDLE_SCHEMA]}, classes)
    if len(distinct) > 1 or (not schemas and not handles):
        raise Unsupported(" | ".join(getattr(a, "__name__", repr(a)) for a in args))
    if handles and not distinct and any(s.get("type") != "null" for s in schemas):
        # A plain arm beside classes only a handle gives (``tz: tzinfo | str``): JSON builds
        # the documented value, and a handle is replaced by its object as for any plain
        # parameter. A "handle" codec refused the string, and the parameter with it.
        return _held_too({"anyOf": [*schemas, HANDLE_SCHEMA]}, classes)
    plain = not handles and all(c.startswith("enum:") for c in distinct)
    options = schemas if plain else [*schemas, HANDLE_SCHEMA]
    return {"anyOf": options}, (distinct[0] if distinct else ("handle" if handles else None))


def _held_too(schema, classes):
    """(schema, None) of a plain parameter, or, when one class arm of it has held instances
    (``currency: str | Currency``, ``USD``), that arm too, with the codec ``held`` that
    decodes ``{"attribute": NAME}`` and passes anything else as plain JSON."""
    arms = [(cls, held_arm(cls)) for cls in classes]
    arms = [(cls, arm) for cls, arm in arms if arm is not None]
    if len(arms) != 1:
        return schema, None
    cls, arm = arms[0]
    return {"anyOf": [*schema["anyOf"], arm]}, f"held:{target_of(cls)}"


def sentinel(cls):
    """An enum of one member: the typed idiom for a "not given" default
    (``class UndefinedType(Enum): _singleton = 0``), no value anyone sends."""
    return inspect.isclass(cls) and issubclass(cls, enum.Enum) and len(cls.__members__) == 1


def _checks_only(cls, schema):
    """A class built from no argument whose metaclass decides ``isinstance`` itself: a check
    on values, not something made of them."""
    built = schema.get("anyOf", [schema])[0]
    if built.get("type") != "object" or built.get("properties"):
        return False
    check = getattr(type(cls), "__instancecheck__", None)
    return check is not None and check is not type.__instancecheck__


def class_schema(cls, ctor_schema=None):
    """(schema, codec) for a parameter annotated with a class."""
    if cls is object or getattr(cls, "__module__", "") in ("collections.abc", "typing"):
        return {}, None  # Hashable, Callable, object...: any JSON value (handles replaced)
    known = _stdlib(cls)
    if known is not None:
        schema, codec = known
        return with_handle(schema, cls), codec
    module = getattr(cls, "__module__", "") or ""
    root = module.partition(".")[0]
    name = cls.__name__
    mro = {f"{c.__module__}.{c.__name__}" for c in getattr(cls, "__mro__", ())}
    if root == "numpy":
        return NUMPY_SCHEMA, "numpy"
    if root == "pandas" and name in ("DataFrame", "Series"):
        schema = {"type": ["array", "object"]}
        return with_handle(schema, cls), "dataframe" if name == "DataFrame" else "series"
    if root == "sympy":
        return with_handle({"type": ["string", "number"]}, cls), "sympy"
    if root == "pint":
        return with_handle({"type": "string"}, cls), f"pint:{target_of(cls)}"
    if root == "networkx" or "networkx.classes.graph.Graph" in mro:
        return with_handle({"type": ["object", "array"]}, cls), f"networkx:{target_of(cls)}"
    if "pydantic.main.BaseModel" in mro:
        return with_handle({"type": "object"}, cls), f"pydantic:{target_of(cls)}"
    if dataclasses.is_dataclass(cls):
        return with_handle(_fields(cls), cls), f"dataclass:{target_of(cls)}"
    if issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        return with_handle(_fields(cls), cls), f"namedtuple:{target_of(cls)}"
    if issubclass(cls, enum.Enum):
        values = [m.value for m in cls]
        if all(isinstance(v, JSON_SCALARS) for v in values):
            return {"enum": values}, f"enum:{target_of(cls)}"
        return {"enum": list(cls.__members__)}, f"enum:{target_of(cls)}"
    built = ctor_schema(cls) if ctor_schema else None
    if built is not None:
        return with_attributes(with_handle(built, cls), cls), f"new:{target_of(cls)}"
    return with_attributes(handle_schema(cls), cls), f"handle:{target_of(cls)}"


TIME_TYPES = (
    (datetime.datetime, {"type": "string", "format": "date-time"}, "datetime"),
    (datetime.date, {"type": "string", "format": "date"}, "date"),
    (datetime.time, {"type": "string", "format": "time"}, "time"),
    (datetime.timedelta, {"type": "number", "description": "A duration in seconds."}, "timedelta"),
)


def _stdlib(cls):
    for base, schema, codec in TIME_TYPES:
        if issubclass(cls, base):
            # A library's own subclass (pendulum's DateTime, Duration) is decoded as itself:
            # its methods need what the base class lacks.
            return schema, codec if cls is base else f"{codec}:{target_of(cls)}"
    if issubclass(cls, decimal.Decimal):
        return {"type": ["string", "number"]}, "decimal"
    if issubclass(cls, fractions.Fraction):
        return {"type": ["string", "integer"]}, "fraction"
    if issubclass(cls, complex):
        complex_schema = {
            "type": "object",
            "properties": {"real": {"type": "number"}, "imag": {"type": "number"}},
        }
        return complex_schema, "complex"
    if cls in (pathlib.Path, pathlib.PurePath, os.PathLike) or issubclass(cls, pathlib.PurePath):
        return {"type": "string", "description": "A path inside the work directory."}, "path"
    return None


def _fields(cls):
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        hints = getattr(cls, "__annotations__", {})
    properties = {}
    for name in hints:
        try:
            properties[name] = schema_for(hints[name])
        except Unsupported:
            properties[name] = {}
    return {"type": "object", "properties": properties}


def schema_for(annotation):
    """The plain JSON Schema of an annotation, or :class:`Unsupported`."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if annotation in (list, tuple, set, frozenset):
        return {"type": "array"}
    if annotation is dict:
        return {"type": "object"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if _is_union(origin):
        return {"anyOf": [schema_for(arg) for arg in args]}
    if origin is typing.Literal:
        if all(isinstance(a, JSON_SCALARS) for a in args):
            return {"enum": list(args)}
        raise Unsupported(repr(annotation))
    if origin is typing.Annotated:
        return schema_for(args[0])
    sequences = (
        list,
        set,
        frozenset,
        abc.Sequence,
        abc.Iterable,
        abc.Collection,
        abc.MutableSequence,
        abc.Set,
        abc.Iterator,
    )
    if origin in sequences:
        return {"type": "array", "items": schema_for(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_for(args[0])}
        if args:
            items = [schema_for(a) for a in args]
            return {
                "type": "array",
                "prefixItems": items,
                "minItems": len(items),
                "maxItems": len(items),
            }
        return {"type": "array"}
    if origin in (dict, abc.Mapping, abc.MutableMapping):
        if args and args[0] is not str:
            raise Unsupported(repr(annotation))
        return (
            {"type": "object", "additionalProperties": schema_for(args[1])}
            if args
            else {"type": "object"}
        )
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        raise Unsupported(annotation.__name__)  # decoded by the enum codec: a member, not a value
    raise Unsupported(getattr(annotation, "__name__", None) or repr(annotation))


def arrays_by_examples(params, examples):
    """A parameter the docs passed an array that numpy built (``np.arange(24,
    dtype=np.int16)``: examples.Literals) takes it through the numpy codec of that item
    type, unless its codec is already another's or names an item type: the docs' own array
    again, where its JSON (nested lists of integers) would make one of 64-bit integers."""
    for example in examples:
        for name, codec in example.pop("_arrays", {}).items():
            param = next((p for p in params if p["name"] == name), None)
            if param is not None and param["codec"] in (None, "numpy"):
                param["codec"] = codec


def typed_by_examples(params, examples, annotated, constructors):
    """An untyped parameter an example passes a class's own instance (``Geodesic.WGS84``,
    shown as ``{"attribute": "WGS84"}``) takes that class: its schema and codec become the
    class's, so that the codecs decode the name into the instance. An example whose name
    lands on a parameter that does not offer it (sympy's ``cos(pi)``: a text codec) is no
    example: the codec would turn ``{"attribute": "pi"}`` into something else; nor is one
    that passes arithmetic over symbols as text (``"x**2 + 1"``: symbols.py) to a
    parameter whose codec does not parse it (one annotated ``str``, say)."""
    held = [(example, example.pop("_held", {})) for example in examples]
    for _, found in held:
        for name, cls in found.items():
            param = next((p for p in params if p["name"] == name), None)
            if param is None or param["codec"] is not None or name in annotated:
                continue
            try:
                schema, codec = parameter_schema(cls, constructors)
            except Unsupported:
                continue
            if cls in VALUE_CLASSES and codec != "timedelta":
                # One example's date is not all the parameter takes (portion's ``closed``:
                # dates, numbers): the codec decodes its form, the rest passes as JSON.
                schema = {"anyOf": [schema.get("anyOf", [schema])[0], {}]}
                codec = "?" + codec
            for key in ("default", "description"):
                if key in param["json_schema"]:
                    schema = dict(schema, **{key: param["json_schema"][key]})
            param["json_schema"], param["codec"] = schema, codec
    schemas = {p["name"]: p["json_schema"] for p in params}
    codecs = {p["name"]: p["codec"] for p in params}
    text = symbol_class()
    examples[:] = [
        e
        for e, found in held
        if all(_offers(schemas.get(n), e["arguments"].get(n)) for n in found)
        and all(codecs.get(n) == TEXT_CODEC for n, cls in found.items() if cls is text)
    ]


def _offers(schema, value):
    """Whether ``schema`` offers ``value`` when it is an instance by name (``{"attribute":
    "USD"}``); any other value (a date's ISO text) is the codec's own form."""
    if not (isinstance(value, dict) and "attribute" in value):
        return True
    if isinstance(schema, dict):
        attribute = (schema.get("properties") or {}).get("attribute")
        if isinstance(attribute, dict) and value.get("attribute") in attribute.get("enum", ()):
            return True
        return any(_offers(s, value) for s in schema.get("anyOf", ()))
    return False
