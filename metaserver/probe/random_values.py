"""Probe helper (runs INSIDE the target environment; standard library only, and numpy when
the package imported it): arrays a session draws from a seeded random stream.

Statistics docs and test suites make their data random but reproducible::

    >>> np.random.seed(123)
    >>> x = np.random.normal(loc=7, size=20)
    >>> pg.ttest(x, 4).round(2)

or ``rng = np.random.default_rng(42)`` then ``x = rng.normal(size=100)``, or
``rs = np.random.RandomState(1234)`` then ``y = rs.randn(100)``. The shown values hold for
those very numbers, and numpy makes them again from the seed: numpy's legacy global stream
is a ``RandomState``, so ``RandomState(123)`` draws what ``np.random.seed(123)`` then
``np.random.normal`` draws, in the same order. The draws are made here, on a private stream
seeded alike, only while the session's order of draws is known: a statement that may draw
from a stream in a way not followed here (a draw inside another call, a library call that
reads the global stream or is given the generator) ends that stream; a new seed starts it
again. Each drawn array travels as its nested lists with its codec (``numpy:float64``), as
an array numpy's functions build over literals does (array_values.py).
"""

import ast
import sys

from .json_values import Unsupported, json_safe
from .session_names import resolve

MAX_ITEMS = 10_000
_VIEWS = ("T",)  # ``np.random.multivariate_normal(m, c, 30).T``: the same numbers, transposed


class _Stream:
    """A private numpy generator and whether a seed fixed it (else its numbers are of no
    known seed: data of the docs' shape, never the docs' own numbers)."""

    def __init__(self, numbers, fixed):
        self.numbers, self.fixed = numbers, fixed


class RandomStreams:
    """The seeded streams of one session: numpy's global one and those bound to names.

    With ``unseeded``, a draw from a stream no seed fixed (``standard_normal((500, 1))``
    with no seed before it, ``default_rng()``) is made too, from a private stream, and the
    names it binds are kept in ``unseeded_names`` until rebound: data of the docs' shape for
    an argument, never for a value shown of it (the docs' own numbers were other ones).
    """

    def __init__(self, namespace, literal, unseeded=False):
        self.namespace = namespace
        self.literal = literal  # node -> a literal node with names put back, or None
        self.unseeded = unseeded
        self.unseeded_names = set()
        self.global_stream = None
        self.named = {}

    def note(self, statement):
        """{name: (nested lists, codec)} for the arrays ``statement`` draws into names, after
        following what it does to the streams; {} when it draws none."""
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return {}
        if isinstance(statement, ast.Assign):
            self.unseeded_names -= {
                n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)
            }
        try:
            return self._note(statement, numpy)
        except Exception:  # numpy refused the arguments: the stream's place is unknown
            self.global_stream = None
            self.named = {}
            return {}

    def _note(self, statement, numpy):
        call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
        if isinstance(statement, ast.Expr) and self._seeds_global(call, numpy):
            seed = self._arguments(call)[0][0]
            self.global_stream = _Stream(numpy.random.RandomState(seed), True)
            return {}
        if isinstance(statement, ast.Assign):
            made = self._generator(call, numpy)
            if made is not None and all(isinstance(t, ast.Name) for t in statement.targets):
                for target in statement.targets:  # ``self.prng = prng = RandomState(10)``
                    self.named[target.id] = made
                return {}
            drawn = self._draw(call, numpy) if len(statement.targets) == 1 else None
            if drawn is not None:
                value, stream = drawn
                bound = _bound(statement.targets[0], value, numpy)
                if not stream.fixed:
                    self.unseeded_names |= set(bound)
                return bound
        self._forget(statement, numpy)
        return {}

    def _seeds_global(self, call, numpy):
        if not isinstance(call, ast.Call) or resolve(call.func, self.namespace) is not getattr(
            numpy.random, "seed", None
        ):
            return False
        arguments = self._arguments(call)
        return arguments is not None and len(arguments[0]) == 1 and not arguments[1]

    def _generator(self, call, numpy):
        """A private stream for ``np.random.default_rng(42)`` or ``np.random.RandomState(42)``
        (and, ``unseeded``, for one with no seed); None for any other line."""
        if not isinstance(call, ast.Call):
            return None
        func = resolve(call.func, self.namespace)
        if func is not numpy.random.default_rng and func is not numpy.random.RandomState:
            return None
        arguments = self._arguments(call)
        if arguments is None or arguments[1] or len(arguments[0]) > 1:
            return None
        if not arguments[0]:
            return _Stream(func(0), False) if self.unseeded else None
        seed = arguments[0][0]
        if type(seed) is not int:
            return None  # an object's seed: no stream to follow
        return _Stream(func(seed), True)

    def _draw(self, node, numpy):
        """(the array, its stream) a draw from a followed stream makes
        (``np.random.normal(size=5)``, ``rng.normal(size=5)``, ``.T`` of one); None for any
        other node."""
        view = None
        if isinstance(node, ast.Attribute) and node.attr in _VIEWS:
            node, view = node.value, node.attr
        if not isinstance(node, ast.Call):
            return None
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(owner, ast.Name) and owner.id in self.named:
            stream, method = self.named[owner.id], node.func.attr
        elif _global_draw(node.func, self.namespace, numpy):
            if self.global_stream is None and self.unseeded:
                self.global_stream = _Stream(numpy.random.RandomState(0), False)
            if self.global_stream is None:
                return None
            # ``np.random.normal(...)`` or, imported by name, ``standard_normal((500, 1))``
            # (arch's docstrings): the global stream's method of that name either way
            stream = self.global_stream
            method = resolve(node.func, self.namespace).__name__
        else:
            return None
        if method.startswith("_"):
            return None
        arguments = self._arguments(node)
        if arguments is None:
            self._end(stream)
            return None
        value = numpy.asarray(getattr(stream.numbers, method)(*arguments[0], **arguments[1]))
        return (value.T if view == "T" else value), stream

    def _arguments(self, call):
        """(args, kwargs) of ``call`` when every one is a literal (names put back)."""
        try:
            args = [ast.literal_eval(self.literal(a)) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(self.literal(k.value)) for k in call.keywords}
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None
        if None in kwargs:
            return None
        return args, kwargs

    def _forget(self, statement, numpy):
        """End each stream ``statement`` may draw from out of our sight: the global one at
        any call that is not numpy's own (a library may read it), a named one wherever its
        name appears; a seed line starts the global one again."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id in self.named:
                self.named.pop(node.id)
            if isinstance(node, ast.Call) and self.global_stream is not None:
                func = resolve(node.func, self.namespace)
                module = getattr(func, "__module__", None) or ""
                if not (module == "numpy" or module.startswith("numpy.")) or _global_draw(
                    node.func, self.namespace, numpy
                ):
                    self.global_stream = None
        for target in statement.targets if isinstance(statement, ast.Assign) else []:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    self.named.pop(node.id, None)

    def _end(self, stream):
        if stream is self.global_stream:
            self.global_stream = None
        self.named = {k: v for k, v in self.named.items() if v is not stream}


def _global_draw(func_node, namespace, numpy):
    """Whether ``func_node`` names a draw of numpy's global stream (``np.random.normal``)."""
    func = resolve(func_node, namespace)
    return getattr(func, "__self__", None) is getattr(numpy.random.mtrand, "_rand", None)


def _bound(target, value, numpy):
    """{name: (nested lists, codec)}: the whole array for a name, its rows for a tuple of
    names (``x, y = ...T``); {} for anything else or an array too large or not numbers."""
    if isinstance(target, ast.Name):
        pairs = [(target.id, value)]
    elif isinstance(target, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        if value.ndim == 0 or len(value) != len(target.elts):
            return {}
        pairs = [(e.id, value[i]) for i, e in enumerate(target.elts)]
    else:
        return {}
    bound = {}
    for name, array in pairs:
        array = numpy.asarray(array)
        if array.dtype.kind not in "biuf" or array.size > MAX_ITEMS:
            return {}
        try:
            bound[name] = (json_safe(array.tolist()), f"numpy:{array.dtype.name}")
        except Unsupported:
            return {}
    return bound
