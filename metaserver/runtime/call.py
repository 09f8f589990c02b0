"""Calling a target callable from a generated tool: arguments in, JSON-safe result out.

Generated servers keep one line per tool (``return invoke(func, [...], arguments, HANDLES)``)
so that every tool shares the same, tested argument and result handling.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import itertools
import sys
from collections.abc import Callable, Mapping
from typing import Any

from .codecs import cap_result, from_json, to_json
from .decode import decode
from .domain import NO_CODEC, encode_domain
from .fields import with_fields
from .handles import HandleTable
from .printed import printed
from .protocols import MAX_ITEMS

__all__ = ["DEFAULT_MAX_BYTES", "KEEP_OWN", "invoke", "resolve", "setter", "split_arguments"]

DEFAULT_MAX_BYTES = 1_000_000
KEEP_OWN = "own"
"""``keep`` for a tool whose docs show its result as text: only an object of a class of
the callable's own package stays a handle (whose ``text`` is what the docs show)."""


def invoke(
    func: Callable[..., Any],
    positional: list[str],
    arguments: dict[str, Any],
    handles: HandleTable,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    codecs: dict[str, str] | None = None,
    keep: bool | str = False,
    unset: list[str] | None = None,
    shows: list[str] | None = None,
) -> Any:
    """Call ``func`` with decoded ``arguments`` and return its capped JSON-safe result.

    Names in ``positional`` are passed positionally, in that order (needed for
    positional-only parameters and for methods whose first parameter is the handle of
    ``self``); a name written ``"*name"`` spreads the list ``arguments[name]`` as ``*args``,
    one written ``"**name"`` the object ``arguments[name]`` as ``**kwargs``. All other
    arguments are passed by keyword. Exceptions from ``func`` propagate, so the
    MCP layer reports them as tool errors.

    ``codecs`` maps parameter names to the codec that decodes them (see ``decode``); other
    arguments only have their handles replaced. With ``keep`` the result is stored as a
    handle even if it has a JSON form: a constructor's object is meant for later calls. A
    class whose call made an object of another class (sympy's ``acos(1)`` is the number 0)
    made no such object: that result is returned as any function's. With ``keep`` set to
    ``KEEP_OWN``, only a result whose class the callable's own package defines is kept.

    A parameter in ``unset`` has a default with no JSON form (a sentinel): given as None
    (its tool's default), it is not passed, so the callable's own default applies.

    A call that returns None but prints answers with what it printed (``printed.py``):
    a table or a summary that the library shows by printing it.

    ``shows`` names attributes of the result that the library's documentation and tests read
    (``res = fit(...)`` then ``res.params``): a result kept as a handle carries their JSON
    values as ``fields``, so a client sees what a scientist reads of it without another call,
    and validation can compare them with the values the repository asserts.
    """
    if unset:
        arguments = {k: v for k, v in arguments.items() if not (v is None and k in unset)}
    # What the library prints is its log, not the protocol: while the stdio transport
    # serves, descriptor 1 is already its stderr, but text left in ``sys.stdout``'s buffer
    # is flushed at exit, after the transport gave descriptor 1 back to the client, which
    # then reads it as a (broken, or forged) JSON-RPC message.
    try:
        with printed() as text:
            result = _invoke(
                func, positional, arguments, handles, max_bytes, codecs or {}, keep, shows or []
            )
            result = with_fields(result, shows or [], handles, max_bytes)
    finally:  # a thread's print between two calls: out now, while descriptor 1 is stderr
        with contextlib.suppress(Exception):
            sys.stdout.flush()
    if result is None and text.text.strip():
        # It showed its answer by printing it (a table, a summary): that text is the answer.
        return cap_result(text.text, max_bytes)
    return result


def _invoke(
    func: Callable[..., Any],
    positional: list[str],
    arguments: dict[str, Any],
    handles: HandleTable,
    max_bytes: int,
    codecs: dict[str, str],
    keep: bool | str,
    shows: list[str],
) -> Any:
    decoded = {
        name: _decoded(name, value, positional, handles, codecs)
        for name, value in arguments.items()
    }
    args, kwargs = split_arguments(func, positional, decoded)
    # No keyword mapping at all when there is none: some C types refuse an empty one
    # (a C constructor that checks for a keyword mapping, not for an empty one).
    result = func(*args, **kwargs) if kwargs else func(*args)
    if keep == KEEP_OWN:
        if _own_object(func, result):
            return handles.put(result)
    elif keep and (not isinstance(func, type) or isinstance(result, func)):
        return handles.put(result)
    if _read_as_object(result, shows):
        return handles.put(result)
    return cap_result(to_json(result, handles), max_bytes)


def _read_as_object(result: Any, shows: list[str]) -> bool:
    """Whether the documentation reads ``result``, a mapping, as an object: an attribute
    that is no key of it and no method (``ds = dcmread(path)`` then ``ds.PatientName``, of
    a mapping of raw elements). Then it is kept as a handle, whose ``fields`` carry what
    was read, rather than answered as its items, where no such value is. A mapping is a
    ``Mapping``, or an object with ``keys`` and ``items`` methods that is no value of a
    library the answer has a form for (a data frame's columns are no attributes' place)."""
    if not shows or not _mapping_like(result):
        return False
    try:
        # Keys as the answer names them: ``in`` may take a name for another key (a dataset
        # finds ``"PatientName" in ds`` by its tag, answered as "(0010,0010)").
        keys = itertools.islice(result.keys(), MAX_ITEMS)
        named = {key for key in keys if isinstance(key, str)}
    except Exception:
        return False
    for name in shows:
        if not name.isidentifier() or name.startswith("_") or name in named:
            continue  # a key read as an attribute (a Bunch's ``data.target``) is an item
        try:
            value = getattr(result, name)
        except Exception:  # a property that raises
            continue
        if not callable(value):
            return True
    return False


def _mapping_like(result: Any) -> bool:
    if isinstance(result, Mapping):
        return True
    try:
        keys, items = getattr(result, "keys", None), getattr(result, "items", None)
    except Exception:  # an object whose attribute lookup raises
        return False
    return callable(keys) and callable(items) and encode_domain(result) is NO_CODEC


def _decoded(
    name: str, value: Any, positional: list[str], handles: HandleTable, codecs: dict[str, str]
) -> Any:
    """One argument decoded by its parameter's codec; a spread ``*args`` list item by item
    (``IIDBootstrap(*arrays)``: each item an array), a ``**kwargs`` object value by value
    (``IIDBootstrap(x, y=y, z=z)``)."""
    if name not in codecs:
        return from_json(value, handles)
    if f"*{name}" in positional and isinstance(value, list):
        return [decode(item, codecs[name], handles) for item in value]
    if f"**{name}" in positional and isinstance(value, dict):
        return {key: decode(item, codecs[name], handles) for key, item in value.items()}
    return decode(value, codecs[name], handles)


def _own_object(func: Callable[..., Any], result: Any) -> bool:
    """Whether ``result`` is an object of a class that ``func``'s package defines."""
    package = (getattr(func, "__module__", None) or "").partition(".")[0]
    module = (getattr(type(result), "__module__", None) or "").partition(".")[0]
    return bool(package) and module == package


def split_arguments(
    func: Callable[..., Any], positional: list[str], arguments: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Split ``arguments`` into ``(args, kwargs)`` for ``func``.

    Positional names are taken in order up to the last one present. A missing name before it
    is filled with the parameter's default when the signature has one; otherwise the
    positional run stops there and the remaining names go by keyword, so a value is never
    shifted into the wrong slot. A name written ``"**name"`` is a ``**kwargs`` object: its
    items are passed by keyword.
    """
    kwargs = dict(arguments)
    for name in positional:
        if name.startswith("**"):
            kwargs.update(kwargs.pop(name[2:], None) or {})
    positional = [name for name in positional if not name.startswith("**")]
    present = [i for i, name in enumerate(positional) if name.lstrip("*") in kwargs]
    last = present[-1] if present else -1
    args: list[Any] = []
    for name in positional[: last + 1]:
        key = name.lstrip("*")
        if key in kwargs:
            value = kwargs.pop(key)
            if name.startswith("*"):
                args.extend(value)
            else:
                args.append(value)
            continue
        default = _default_of(func, key)
        if default is inspect.Parameter.empty:
            break
        args.append(default)
    return args, kwargs


def setter(name: str) -> Callable[..., None]:
    """The function a setter tool calls: it sets attribute ``name`` of its receiver to
    ``value``, as the docs' ``m.scale = Scale(2)`` does (the object stays in the handle
    table, changed in place; the tool returns null)."""

    def assign(receiver: Any, /, value: Any) -> None:
        setattr(receiver, name, value)

    assign.__name__ = f"set_{name}"
    return assign


def _default_of(func: Callable[..., Any], name: str) -> Any:
    """The default of parameter ``name``, or ``Parameter.empty`` when there is none."""
    try:
        parameter = inspect.signature(func).parameters.get(name)
    except (TypeError, ValueError):  # builtins without a signature
        return inspect.Parameter.empty
    return inspect.Parameter.empty if parameter is None else parameter.default


def resolve(target: str) -> Callable[..., Any]:
    """Import ``"package.module:Qual.Name"`` and return the callable it names.

    Without a colon, the longest importable dotted prefix is taken as the module, so
    ``"os.path.join"`` works too.
    """
    if ":" in target:
        module_name, _, qualname = target.partition(":")
        module = importlib.import_module(module_name)
    else:
        module, qualname = _import_prefix(target)
    obj: Any = module
    for part in qualname.split(".") if qualname else []:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"cannot resolve {target!r}: no attribute {part!r}") from None
    if not callable(obj):
        raise TypeError(f"{target!r} resolves to a non-callable {type(obj).__name__}")
    return obj  # type: ignore[no-any-return]


def _import_prefix(target: str) -> tuple[Any, str]:
    """Import the longest dotted prefix of ``target`` that is a module."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if not (module_name == missing or module_name.startswith(missing + ".")):
                raise  # the module exists but one of its own imports is missing
            continue
        return module, ".".join(parts[cut:])
    raise ModuleNotFoundError(f"cannot resolve {target!r}: no importable module prefix")
