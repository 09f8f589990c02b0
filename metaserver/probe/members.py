"""Probe helper (runs INSIDE the target environment; standard library only): one member.

A public function becomes one candidate; a public class becomes a constructor candidate
(``pkg.mod:Class``, returning a handle) and method candidates (``pkg.mod:Class.method``)
whose first parameter is the handle of the instance. Static and class methods are plain
functions of the class.
"""

import inspect
import keyword
import re
import sys
import types
import typing

from .arguments import container_typed, refined_parameter
from .built_arguments import value_examples
from .doc_types import documented_annotation
from .docstrings import parameter_docs, parameter_types, summary_of
from .doctest_lines import MAX_EXAMPLES, code_lines_session
from .examples import examples_for, shown_first
from .guide_signatures import guide_signature, set_called_texts
from .guides import set_texts, variable_class
from .json_values import Unsupported, json_safe
from .returns import returned_class
from .scan import scan
from .schemas import (
    arrays_by_examples,
    class_schema,
    instance_attributes,
    parameter_schema,
    schema_for,
    sentinel,
    typed_by_examples,
)
from .sessions import method_examples
from .signatures import text_signature

MAX_METHODS = 40
KEYWORDS = "Further keyword arguments, by name (the callable's ``**kwargs``)."
GUIDES = []  # the README's and guides' code as doctest sessions (set_guides)
GUIDE_METHODS = set()  # the names the guides call as attributes: ``h2.get_energy()``
TESTS = []  # the test suite's tests as doctest sessions (set_tests)
MAX_TEST_TEXTS = 12
TEST_SHARE = 2
"""The examples a callable's tests may take at least, beside its docs' (``_kept``)."""
"""Tests read at most for one method: a name such as ``fit`` is called in hundreds."""
KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
}


def _in_package(obj, package_name):
    home = getattr(obj, "__module__", "") or ""
    return home == package_name or home.startswith(package_name + ".")


def public_members(module, package_name):
    """(public name, function or class, in __all__) a user of ``module`` is meant to call."""
    exported = getattr(module, "__all__", None)
    names = list(exported) if isinstance(exported, (list, tuple)) else dir(module)
    if "__getattr__" in vars(module):
        # A module's ``__getattr__`` (PEP 562) answers names ``dir`` never lists: pydicom's
        # README calls ``examples.get_path("ct")``, which ``examples.__getattr__`` returns.
        # Only the names the guides call after a dot are asked for.
        names += sorted(GUIDE_METHODS - set(names))
    for name in names:
        if not isinstance(name, str) or name.startswith("_"):
            continue
        try:
            obj = getattr(module, name, None)
        except Exception:  # noqa: S112  (a lazy attribute whose import fails is not a tool)
            continue
        if inspect.isclass(obj):
            if not _in_package(obj, package_name) or not _toolable_class(obj):
                continue
        elif _callable_instance(obj, package_name):
            pass  # a module-level object with __call__ (textdistance.hamming): a function
        elif _exported_method(obj, package_name):
            pass  # a context's method exported as a function (``besselj = mp.besselj``)
        elif not (inspect.isfunction(obj) or inspect.isbuiltin(obj) or _compiled_or_wrapped(obj)):
            continue
        elif not _in_package(obj, package_name):
            continue  # re-exported from elsewhere (stdlib, a dependency)
        yield name, obj, isinstance(exported, (list, tuple)) and name in exported


def _compiled_or_wrapped(obj):
    """A compiled function that is neither a Python function nor a builtin (Cython's
    ``cython_function_or_method``: ``pywt.wavelist``) with a signature ``inspect`` reads,
    or a function behind a ``functools`` wrapper (``lru_cache``: ``pywt.data.camera``)."""
    if callable(obj) and inspect.isfunction(getattr(obj, "__wrapped__", None)):
        return True
    if not (inspect.isroutine(obj) and callable(obj)) or inspect.ismethod(obj):
        return False
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return True


def _exported_method(obj, package_name):
    """A bound method a module exports as a function: a library whose functions live on a
    context object (``sqrt = ctx.sqrt``) documents them by the module's name, without the
    context parameter the unbound function takes first."""
    return inspect.ismethod(obj) and _in_package(obj.__func__, package_name)


def _callable_instance(obj, package_name):
    cls = type(obj)
    call = getattr(cls, "__call__", None)  # noqa: B004  (the class's, not the instance's)
    return (
        not inspect.isroutine(obj)
        and not inspect.ismodule(obj)
        and _in_package(cls, package_name)
        and inspect.isfunction(call)
        and _in_package(call, package_name)
    )


def _toolable_class(cls):
    import enum

    if issubclass(cls, (BaseException, enum.Enum)) or inspect.isabstract(cls):
        return False
    return not getattr(cls, "_is_protocol", False) and not typing.is_typeddict(cls)


class _Constructors:
    """Object schemas of constructors, for classes of the target package (codec ``new``)."""

    def __init__(self, package_name):
        self.package_name = package_name
        self.cache = {}

    def __call__(self, cls):
        if cls not in self.cache:
            self.cache[cls] = None  # a class whose constructor needs itself: no JSON form
            self.cache[cls] = self._build(cls)
        return self.cache[cls]

    def _build(self, cls):
        if not _in_package(cls, self.package_name) or not _toolable_class(cls):
            return None
        try:
            signature = inspect.signature(cls)
            hints = typing.get_type_hints(cls.__init__)
        except Exception:
            return None
        properties, required = {}, []
        parameters = signature.parameters.values()
        doc = _class_doc(cls)
        docs, types = parameter_docs(doc), parameter_types(doc)
        home = sys.modules.get(cls.__module__)
        if any(p.kind is p.VAR_POSITIONAL for p in parameters) and not any(
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters
        ):
            return None  # built from *args alone: keyword arguments would make an empty one
        for p in parameters:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name.startswith("_"):
                continue
            annotation = _annotation(hints, p)
            documented = documented_annotation(p.name, types, docs, home)
            # A function, or an object no JSON builds (only a handle), is no constructor
            # argument either when only the docstring says so; a class JSON can build
            # stays untyped here (a receiver needing one is built by its tool: specs.py).
            if annotation is inspect.Parameter.empty and (
                documented is typing.Callable or self._handle_only(documented)
            ):
                annotation = documented
            try:
                properties[p.name] = schema_for(annotation)
            except Unsupported:
                if p.default is p.empty:
                    return None
                continue
            if p.default is p.empty:
                required.append(p.name)
        return {"type": "object", "properties": properties, "required": required}

    def _handle_only(self, cls):
        """Whether a parameter of class ``cls`` takes a handle and nothing else."""
        if not inspect.isclass(cls):
            return False
        try:
            codec = parameter_schema(cls, self)[1]
        except Unsupported:
            return True
        return (codec or "").startswith("handle") and not instance_attributes(cls)


def _annotation(hints, p):
    annotation = hints.get(p.name, p.annotation)
    return inspect.Parameter.empty if isinstance(annotation, str) else annotation


def describe_callable(
    func, public_name, module, in_all, *, target=None, kind="function", owner=None, doc=None
):
    """(candidate or None, reason when None, target) for one function, method or class."""
    target = target or f"{module.__name__}:{public_name}"
    constructors = _Constructors(module.__name__.partition(".")[0])
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        # A C extension's class or method: the call its docstring's first line writes.
        spelled = getattr(func, "__name__", "") or public_name.rpartition(".")[2]
        signature = text_signature(func, spelled, method=kind == "method")
        if signature is None:
            # ``satellite.sgp4(jd, fr)``: what the README passes (guide_signatures.py)
            signature = guide_signature(spelled, method=kind == "method")
        if signature is None:
            return None, "no signature", target
    if kind == "constructor" and _star_args_only(func):
        # The class advertises names (a ``__signature__``) that its constructor only takes
        # by position: ``cos(arg=1)`` puts 1 in sympy's ``**options``.
        signature = signature.replace(
            parameters=[
                p.replace(kind=p.POSITIONAL_ONLY) if p.kind is p.POSITIONAL_OR_KEYWORD else p
                for p in signature.parameters.values()
            ]
        )
    if _dispatches(func):
        # ``functools.singledispatch`` picks the implementation by its first argument's
        # class and refuses a call that passes it by keyword ("requires at least 1
        # positional argument"), which the tool otherwise would.
        first, *rest = list(signature.parameters.values()) or [None]
        if first is not None and first.kind is first.POSITIONAL_OR_KEYWORD:
            signature = signature.replace(
                parameters=[first.replace(kind=first.POSITIONAL_ONLY), *rest]
            )
    if kind == "method":  # the instance arrives as a handle, named below
        first, *rest = list(signature.parameters.values()) or [None]
        if first is None or first.kind not in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD):
            return None, "a method without self", target
        signature = signature.replace(parameters=rest)
    hint_source = func.__init__ if kind == "constructor" else func
    if not (inspect.isroutine(func) or inspect.isclass(func)):
        hint_source = type(func).__call__  # a callable instance: its class's __call__
    try:
        hints = typing.get_type_hints(hint_source, include_extras=True)
    except Exception:
        hints = {}
    doc = doc if doc is not None else (inspect.getdoc(func) or "")
    docs, types = parameter_docs(doc), parameter_types(doc)
    home = sys.modules.get(getattr(owner or func, "__module__", "") or "", module)
    params, hidden, positional = [], [], []
    if kind == "method":
        names = set(signature.parameters)
        handle = next(n for n in ("handle", "obj", "instance", "self_") if n not in names)
        schema, codec = class_schema(owner, constructors)
        schema = dict(schema, description=f"The {owner.__name__} to call the method on.")
        params.append(_param(handle, "positional_only", schema, True, None, None, codec))
        positional.append(handle)
    for p in signature.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            hidden.append(p.name)
            continue
        if p.kind is p.VAR_POSITIONAL:  # *args: a list, spread by the runtime
            try:
                schema, codec = parameter_schema(_annotation(hints, p), constructors)
            except Unsupported as exc:
                return None, f"*{p.name}: type {exc} has no JSON form yet", target
            if codec == "handle":  # plain arms or handles: the runtime replaces handles
                schema, codec = {}, None
            # A codec decodes each item (runtime/call.py): ``IIDBootstrap(*args: ArrayLike)``
            # takes arrays one by one.
            schema = {"type": "array", "items": schema, "default": []}
            if p.name in docs:
                schema["description"] = docs[p.name]
            positional.append("*" + p.name)
            params.append(
                _param(p.name, "var_positional", schema, False, [], docs.get(p.name), codec)
            )
            continue
        if p.kind is not p.KEYWORD_ONLY:
            positional.append(p.name)
        required = p.default is p.empty
        if p.name in ("self", "cls") and kind != "method":
            # FastMCP refuses a tool function whose first parameter looks like self or cls.
            if required:
                return None, f"parameter {p.name!r} expects a class or instance", target
            hidden.append(p.name)
            continue
        if keyword.iskeyword(p.name) or p.name.startswith("_"):
            if required:
                return None, f"parameter {p.name!r} cannot be named in a tool", target
            hidden.append(p.name)
            continue
        annotation = _annotation(hints, p)
        if annotation is inspect.Parameter.empty:  # the docstring's type, if it names a class
            annotation = documented_annotation(p.name, types, docs, home)
        if annotation is inspect.Parameter.empty and required and p.name not in types:
            # Nothing says: the class the guides' variable of that name always holds.
            found = variable_class(p.name, module.__name__.partition(".")[0])
            annotation = found or annotation
        try:
            schema, codec = parameter_schema(annotation, constructors)
        except Unsupported as exc:
            if required:
                return None, f"parameter {p.name!r}: type {exc} has no JSON form yet", target
            hidden.append(p.name)
            continue
        default, unset = None, False
        if not required:
            try:
                if sentinel(type(p.default)):
                    raise Unsupported(repr(p.default))  # "not given", not a value
                default = json_safe(p.default)
                schema = dict(schema, default=default)
            except Unsupported:
                # A default with no JSON form (a sentinel: ``val=UNDEFINED``, ``inf``): a
                # typed argument is still one the tool takes; left out, the callable's own
                # default applies. Untyped, nothing says what to send (``cb=print``); typed
                # ``object``, anything goes, but a bare ``object()`` default is a marker.
                if not schema and (annotation is not object or type(p.default) is object):
                    hidden.append(p.name)
                    continue
                unset = True
        if p.name in docs:
            schema["description"] = docs[p.name]
        home_name = getattr(home, "__name__", module.__name__)
        schema, codec, said = refined_parameter(
            annotation,
            types.get(p.name),
            p.default,
            schema,
            codec,
            home_name,
            docs.get(p.name),
            p.name,
        )
        param = _param(p.name, KINDS[p.kind], schema, required, default, said, codec)
        params.append(dict(param, unset_default=True) if unset else param)
    exposed = {p["name"] for p in params}
    # ``**kwargs`` is a parameter only where the docs pass keywords into it (``Atoms('H2',
    # positions=...)``): an object of names, spread by the runtime.
    spread = next((p.name for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD), None)
    if spread is not None and (keyword.iskeyword(spread) or spread.startswith("_")):
        spread = None
    call_names = {public_name.rpartition(".")[2], getattr(func, "__name__", public_name)}
    danger, deprecated = scan(
        func.__init__ if kind == "constructor" and inspect.isfunction(func.__init__) else func,
        public_name.rpartition(".")[2],
    )
    examples = _examples(
        func,
        call_names,
        doc,
        signature,
        exposed | {spread} - {None},
        kind,
        owner,
        public_name,
        module,
    )
    if spread is not None and any(spread in e["arguments"] for e in examples):
        spread_keywords(params, hidden, spread)
        spread = None
    annotated = {
        name
        for name, declared in signature.parameters.items()
        if _annotation(hints, declared) is not inspect.Parameter.empty
    }
    typed_by_examples(params, examples, annotated, constructors)
    arrays_by_examples(params, examples)
    container_typed(params, doc, call_names, signature)
    annotated = [p for p in signature.parameters.values() if p.name in hints]
    candidate = {
        "target": target,
        "name": public_name,
        "signature": f"{public_name}{signature}",
        "parameters": params,
        "hidden_parameters": hidden,
        "doc": doc,
        "summary": summary_of(doc),
        "examples": examples,
        "in_all": in_all,
        "top_level": "." not in module.__name__,
        "kind": kind,
        "owner": f"{module.__name__}:{public_name.partition('.')[0]}" if owner else None,
        "positional": positional,
        "dangerous": danger,
        "deprecated": deprecated,
        "annotated": len(annotated) / len(signature.parameters) if signature.parameters else 1.0,
    }
    if spread is not None:  # a session step may still pass keywords there (script)
        candidate["_spread"] = spread
    _note_classes(candidate, func, kind)
    return candidate, None, target


def spread_keywords(params, hidden, name):
    """Make the hidden ``**name`` a parameter: an object whose items are passed by keyword."""
    schema = {"type": "object", "default": {}, "description": KEYWORDS}
    params.append(_param(name, "var_keyword", schema, False, {}, KEYWORDS, None))
    hidden.remove(name)


def _note_classes(candidate, func, kind):
    """The package's classes a function says it returns (``_returns``) and a class inherits
    from (``_bases``), by id: ``script`` names them by their constructors' targets."""
    package = (getattr(func, "__module__", "") or "").partition(".")[0]
    if kind == "function":
        try:
            returned = returned_class(func)
        except Exception:  # an annotation that raises when read: says nothing
            returned = None
        if inspect.isclass(returned) and _in_package(returned, package):
            candidate["_returns"] = id(returned)
    elif kind == "constructor" and inspect.isclass(func):
        bases = [b for b in func.__mro__[1:] if _in_package(b, package)]
        if bases:
            candidate["_bases"] = [id(b) for b in bases]


def _dispatches(func):
    """Whether ``func`` is a ``functools.singledispatch`` function."""
    return callable(getattr(func, "dispatch", None)) and hasattr(func, "registry")


def _star_args_only(cls):
    """Whether every constructor method the class defines (``__new__``, ``__init__``, not
    object's) takes its arguments as ``*args`` and names none (sympy's ``Function.__new__(cls,
    *args, **options)``), whatever signature the class advertises."""
    defined = []
    for name in ("__new__", "__init__"):
        owner = next((k for k in cls.__mro__ if name in vars(k)), object)
        if owner is not object:
            defined.append(getattr(cls, name))
    if not defined:
        return False
    for method in defined:
        try:
            parameters = list(inspect.signature(method).parameters.values())[1:]
        except (TypeError, ValueError):
            return False
        kinds = {p.kind for p in parameters}
        if inspect.Parameter.VAR_POSITIONAL not in kinds:
            return False
        if kinds & {inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD}:
            return False
    return True


def set_guides(texts):
    """The README's and guide pages' code, one doctest-style text per file (analyse.py)."""
    GUIDES[:] = [t for t in texts if isinstance(t, str)]
    set_texts(GUIDES)
    set_called_texts(GUIDES)
    GUIDE_METHODS.clear()
    GUIDE_METHODS.update(m for t in GUIDES for m in re.findall(r"\.(\w+)\s*\(", t))


def set_tests(texts):
    """The test suite's tests as doctest sessions (repo_docs/test_sessions.py): read only
    for methods' examples, after the docs, and never as the repository's own lines."""
    TESTS[:] = [t for t in texts if isinstance(t, str)]


def _test_examples(owner, owner_target, method, signature, exposed):
    """A method's examples in the tests that call it on a receiver they built: ``usage``
    examples (their values are the tests' assertions, written as output by us), with no
    ``line``: a replay of them is no replay of the repository's own text."""
    found = []
    mentioned = [t for t in TESTS if method in _after_dots(t)][:MAX_TEST_TEXTS]
    for text in mentioned:
        for example in method_examples(
            owner, owner_target, method, text, signature, exposed, built_only=True
        ):
            example = dict(example, origin="usage")
            example.pop("line", None)
            if example["has_expected"] and example not in found:
                found.append(example)
        if len(found) >= MAX_EXAMPLES:
            break
    return found


def _function_test_examples(func, names, tests, signature, exposed, module, package):
    """A function's examples in the tests that call it, each with the value the test
    asserted: literal calls, and calls given objects the test built (``db1 =
    Wavelet('db1')``, then ``cA, cD = wavedec(x, db1)`` and ``assert_allclose(cA, ...)``).
    ``usage`` examples without ``line``, as a method's (_test_examples)."""
    found = []
    for text in tests:
        read = examples_for(func, names, text, signature, exposed, guide=True)
        read += value_examples(func, module, text, signature, exposed, package, True)
        for example in read:
            if example["has_expected"]:
                example = dict(example, origin="usage")
                example.pop("line", None)
                found.append(example)
    return found


def _examples(func, names, doc, signature, exposed, kind, owner, public_name, module):
    if kind != "method":
        # Literal calls, then calls whose arguments are objects built by the package's own
        # callables (``contains(line, Point(0, 0))``), in its docstring and the README's.
        found = examples_for(func, names, doc, signature, exposed)
        package = module.__name__.partition(".")[0]
        # Any name it goes by: a wrapper's __name__ may not be its public one.
        spelled = "|".join(re.escape(n) for n in sorted(names) if n) or "-"
        called = re.compile(rf"\b(?:{spelled})\s*\(")
        texts = [(doc, False)] + [(t, True) for t in GUIDES if called.search(t)]
        for text, _ in texts[1:]:  # ``img = nib.load(path)`` on a guide page
            for example in examples_for(func, names, text, signature, exposed, guide=True):
                if example not in found:
                    found.append(example)
        seen = {_example_key(e) for e in found}
        for text, guide in texts:
            for example in value_examples(func, module, text, signature, exposed, package, guide):
                if _example_key(example) not in seen:  # the same call read both ways
                    seen.add(_example_key(example))
                    found.append(example)
        if not found:  # its docstring's code without prompts: the docs' arguments, no value
            code = code_lines_session(doc, called)
            found = examples_for(func, names, code, signature, exposed) if code else []
        tested = []
        if sum(e["has_expected"] for e in found) < MAX_EXAMPLES:
            tests = [t for t in TESTS if called.search(t)][:MAX_TEST_TEXTS]
            read = _function_test_examples(func, names, tests, signature, exposed, module, package)
            for example in read:
                if _example_key(example) not in seen:
                    seen.add(_example_key(example))
                    tested.append(example)
        return _kept(found, tested)
    # A method's output belongs to the receiver its session built: its own docstring's
    # sessions first, then the class's (where a stateful walk-through usually lives), then
    # the README's and guides' (``patch = Point(0, 0).buffer(10)``: what users do first).
    owner_target = f"{module.__name__}:{public_name.partition('.')[0]}"
    method = getattr(func, "__name__", "")
    found = []
    mentioned = re.compile(rf"\.\s*{re.escape(method)}\b") if method else None
    texts = [(doc, False), (_class_doc(owner), False)]
    # The guides are asked by the names they write after a dot, found once: a search of
    # every guide for every method of every class is a tenth of a large library's probe.
    texts += [(t, True) for t in GUIDES if method in _after_dots(t) or not method.isidentifier()]
    for text, built_only in texts:
        # Only an attribute (``x.method(...)``, ``f = x.method``) makes an example of it: a
        # text that never writes one is not read (a class's long docstring, once per method).
        if mentioned is None or not mentioned.search(text):
            continue
        for example in method_examples(
            owner, owner_target, method, text, signature, exposed, built_only
        ):
            if example not in found:
                found.append(example)
    tested = []
    if method.isidentifier() and sum(e["has_expected"] for e in found) < MAX_EXAMPLES:
        tested = _test_examples(owner, owner_target, method, signature, exposed)
    return _kept(found, tested)


def _kept(documented, tested):
    """At most MAX_EXAMPLES examples, those that show a value first: the tests' (our reading
    of them, which may not replay) take the room the docs leave, and never more than
    TEST_SHARE of it while the docs have examples, so that the docs' own calls stay
    (pydicom's ``dcmread("CT_small.dcm")`` was crowded out by its tests' values)."""
    documented = sorted(documented, key=shown_first)
    room = MAX_EXAMPLES - min(len(documented), MAX_EXAMPLES - TEST_SHARE)
    kept = documented[: MAX_EXAMPLES - min(len(tested), room)] + tested[:room]
    kept.sort(key=shown_first)
    # Where every kept example shows a value, the docs' plain call (no value shown, no
    # session: ``dcmread("CT_small.dcm")``) takes the last place: values that prove
    # unreadable or whose sessions do not replay leave it the one that runs (design does
    # the same with the tool's examples, specs._with_plain_call).
    plain = next(
        (e for e in documented if not e["has_expected"] and not e.get("session") and e not in kept),
        None,
    )
    if plain is not None and len(kept) == MAX_EXAMPLES and all(e["has_expected"] for e in kept):
        kept[-1] = plain
    return kept


def _example_key(example):
    """What makes two examples one: the call, what it shows, and the session before it."""
    keys = ("arguments", "expected", "has_expected", "wrapper", "part")
    fields = {k: example.get(k) for k in keys}
    fields["session"] = example.get("session") or []
    return repr(sorted(fields.items()))


_AFTER_DOTS = {}


def _after_dots(text):
    """Every name ``text`` writes after a dot (``x.method``, ``x . method``), once per text."""
    if text not in _AFTER_DOTS:
        _AFTER_DOTS[text] = frozenset(re.findall(r"\.\s*(\w+)", text))
    return _AFTER_DOTS[text]


def _param(name, kind, schema, required, default, description, codec):
    return {
        "name": name,
        "kind": kind,
        "json_schema": schema,
        "required": required,
        "default": default,
        "description": description,
        "codec": codec,
    }


def describe_class(cls, public_name, module, in_all, package_name):
    """The constructor and the public methods of ``cls``: (candidate, reason, target) each."""
    out = [
        describe_callable(
            cls,
            public_name,
            module,
            in_all,
            kind="constructor",
            owner=cls,
            doc=_class_doc(cls),
        )
    ]
    # The methods the guides call come first: the cap must not cut what the README shows.
    for name in sorted(dir(cls), key=lambda n: (n not in GUIDE_METHODS, n)):
        if name.startswith("_") or len(out) > MAX_METHODS:
            continue
        try:
            static = inspect.getattr_static(cls, name)
            value = getattr(cls, name)
        except Exception:  # noqa: S112  (a descriptor that raises is simply not a tool)
            continue
        defining = next((k for k in cls.__mro__ if name in vars(k)), None)
        if defining is None or not _in_package(defining, package_name):
            continue  # inherited from object, a builtin or another library
        qualified = f"{public_name}.{name}"
        target = f"{module.__name__}:{qualified}"
        if isinstance(static, (staticmethod, classmethod, types.ClassMethodDescriptorType)):
            described = describe_callable(
                value, qualified, module, in_all, target=target, owner=cls
            )
        elif inspect.isfunction(static) or _native_method(static, name):
            described = describe_callable(
                static, qualified, module, in_all, target=target, kind="method", owner=cls
            )
        else:
            continue
        if described[0] is not None:  # design keeps one tool per defining class
            described[0]["defined_in"] = f"{defining.__module__}:{defining.__qualname__}"
        out.append(described)
    return out


def _native_method(static, name):
    """A C extension's method (``bitarray.append``) whose docstring writes its call (not a
    class method: its first parameter is the class, not a receiver)."""
    return (
        inspect.ismethoddescriptor(static)
        and not isinstance(static, types.ClassMethodDescriptorType)
        and (
            text_signature(static, name) is not None
            or guide_signature(name, method=True) is not None
        )
    )


def _class_doc(cls):
    doc = inspect.getdoc(cls) or ""
    init = inspect.getdoc(cls.__init__) if "__init__" in vars(cls) else None
    if init and init != inspect.getdoc(object.__init__) and init not in doc:
        doc = f"{doc}\n\n{init}".strip()
    return doc
