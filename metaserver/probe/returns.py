"""Probe helper (runs INSIDE the target environment; standard library only): what a
builder returns.

A session's receiver may come from a call other than its class's constructor: a function of
the package (``x = ufloat(2, 0.25)``) or a class method (``Version.parse("3.4.5")``). Whether
such a call builds the receiver, and whether its tool hands back the object itself (a
handle) or its data, is read from the return annotation (resolved: ``-> T`` bound to the
class, postponed annotations) or the docstring's ``Returns`` section.
"""

import ast
import inspect
import sys
import textwrap
import types
import typing

from .doc_types import documented_type
from .docstrings import returned_type
from .schemas import class_schema


def kept_as_handle(owner):
    """Whether a function's or method's result of class ``owner`` comes back from its tool
    as a handle (only a constructor's tool keeps one always): one with a JSON form
    (pendulum's DateTime, an ISO string) comes back as data, and rebuilding the receiver
    from it would lose what the data leaves out (its zone), so no session is built on it."""
    try:
        codec = class_schema(owner)[1] or ""
    except Exception:
        return False
    return codec.partition(":")[0] in ("handle", "new")


def returns_owner(annotation, owner):
    """Whether a return annotation names ``owner`` (``Self``, the class, a subclass, or
    their names as text): a guess here would replay a method on an object of another
    class, and its output would say nothing of the line."""
    if isinstance(annotation, str):
        annotation = annotation.strip("'\" ")
        return annotation in ("Self", "typing.Self", owner.__name__, owner.__qualname__)
    if getattr(annotation, "_name", None) == "Self":  # typing.Self
        return True
    return inspect.isclass(annotation) and issubclass(annotation, owner)


def returns_self(owner, name):
    """Whether ``owner``'s method ``name`` ends every path with ``return self`` (an
    estimator's ``fit``, a fluent setter): unannotated, its result is its receiver, set up
    in place. Read from the method's source (decorators unwrapped); False when there is none
    or any ``return`` gives something else."""
    function = inspect.getattr_static(owner, name, None)
    if not inspect.isfunction(function):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(function))))
    except (OSError, TypeError, ValueError, SyntaxError, RecursionError, MemoryError):
        return False
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    arguments = definition.args.posonlyargs + definition.args.args
    if not arguments:
        return False
    receiver = arguments[0].arg
    returns = list(_own_returns(definition))
    return bool(returns) and all(
        isinstance(r.value, ast.Name) and r.value.id == receiver for r in returns
    )


def _own_returns(node):
    """The ``return`` statements under ``node``, not those of the functions inside it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            yield child
        elif not isinstance(child, _SCOPES):
            yield from _own_returns(child)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def factory_of(builder, owner):
    """Whether ``builder`` is a function of the package that may return an ``owner``
    (``x = ufloat(2, 0.25)`` then ``x.std_dev()``): its return annotation says so, or it
    has none (a wrong guess fails our replay, never the repository's verdict)."""
    if not (
        inspect.isfunction(builder) or inspect.isbuiltin(builder) or class_factory(builder, owner)
    ):
        return False
    package = (getattr(owner, "__module__", "") or "").partition(".")[0]
    home = getattr(builder, "__module__", "") or ""  # None on a C class method
    if home.partition(".")[0] != package and not class_factory(builder, owner):
        return False
    returned = returned_class(builder)
    if returned is None or isinstance(returned, str):
        return True
    return inspect.isclass(returned) and (
        issubclass(returned, owner) or issubclass(owner, returned)
    )


def class_factory(builder, owner):
    """Whether ``builder`` is a class method called on ``owner`` itself
    (``ver = Version.parse("3.4.5")``): its tool is listed under the class's target."""
    if isinstance(builder, types.ClassMethodDescriptorType):  # a C extension's, unbound
        return inspect.isclass(owner) and issubclass(owner, builder.__objclass__)
    # or bound to the class (``Satrec.twoline2rv``): a builtin whose ``__self__`` it is
    bound = inspect.ismethod(builder) or inspect.isbuiltin(builder)
    return bound and getattr(builder, "__self__", None) is owner


_RETURNED = {}


def returned_class(builder):
    """What ``builder`` says it returns (``_returned_class``), read once per function: a
    guide's every assignment asks it for every method the guide calls."""
    try:
        return _RETURNED[builder]
    except KeyError:
        found = _returned_class(builder)
    except TypeError:  # an unhashable callable
        return _returned_class(builder)
    _RETURNED[builder] = found
    return found


def _returned_class(builder):
    """What ``builder`` says it returns: its return annotation, else the package's class its
    docstring's ``Returns`` names (``response : `FrequencyResponseData```: without it, every
    class with a ``plot`` method would take ``resp.plot()`` as its own); None when neither
    says (or the docstring names no class of the package)."""
    try:  # postponed annotations (``-> T``, ``-> "Ver"``) as the objects they name
        returned = typing.get_type_hints(builder).get("return")
    except Exception:
        returned = getattr(builder, "__annotations__", {}).get("return")
    if isinstance(returned, typing.TypeVar):  # ``-> T`` with ``T = TypeVar("T", bound=...)``
        returned = returned.__bound__
        returned = getattr(returned, "__forward_arg__", returned)
    if isinstance(returned, str):  # a forward reference, or a postponed annotation
        return _named_class(returned.strip("'\" "), builder) or returned
    if returned is not None:
        return returned
    text = returned_type(inspect.getdoc(builder) or "")
    if not text:
        return None
    return _named_class(text.strip("`*~ ").partition(" ")[0].strip("`*~,"), builder)


def _named_class(name, builder):
    """The package's class ``name`` names, seen from ``builder``'s module or its package."""
    module = sys.modules.get(getattr(builder, "__module__", "") or "")
    package = sys.modules.get((getattr(builder, "__module__", "") or "").partition(".")[0])
    for home in (module, package):
        found = documented_type(name, home) if home is not None and name else None
        if inspect.isclass(found):
            return found
    return None
