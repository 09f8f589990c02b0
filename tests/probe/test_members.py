"""The probe on classes, codecs and risk flags, run as in production: a script in a child."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from receiver_fixtures import SUITE_TALLY, SUITE_WAVES

from metaserver.agents.analysis.analyse import PROBE
from metaserver.contracts import Candidate, CodeReport


def probed(root: Path) -> CodeReport:
    """The probe's report on the packages under ``root``, run as in production."""
    output = root / "report.json"
    subprocess.run(
        [sys.executable, "-I", str(PROBE), "--output", str(output), "--path", str(root)],
        check=True,
        cwd=root,
        timeout=60,
    )
    return CodeReport.model_validate(json.loads(output.read_text()))


PACKAGE = '''\
"""A package with classes, typed parameters and risky functions."""

import datetime
import os
import subprocess
import warnings
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Callable, Hashable, NamedTuple, Optional


class Accumulator:
    """Adds numbers up."""

    def __init__(self, start: float = 0.0) -> None:
        self.total = start

    def add(self, value: float) -> "Accumulator":
        """Add a value."""
        self.total += value
        return self

    def result(self) -> float:
        return self.total

    @classmethod
    def from_list(cls, values: list[float]) -> "Accumulator":
        return cls(sum(values))

    @property
    def doubled(self) -> float:
        return 2 * self.total

    def _private(self) -> None:
        pass


class Counter(Accumulator):
    """An accumulator that only counts: it inherits add and result."""

    def reset(self) -> None:
        self.total = 0.0


class Opaque:
    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback


@dataclass
class Point:
    x: float
    y: float


class Pair(NamedTuple):
    a: int
    b: int


class Scorer:
    def __call__(self, *words: str) -> int:
        return sum(map(len, words))


score = Scorer()


def codecs(
    when: datetime.datetime,
    day: datetime.date,
    amount: Decimal,
    part: Fraction,
    z: complex,
    where: Path,
    p: Point,
    pair: Pair,
    acc: Accumulator,
    maybe: Optional[datetime.date] = None,
    key: Hashable = 1,
) -> None:
    """Every standard codec."""


def needs_opaque(o: Opaque) -> None:
    """Only a handle can be passed."""


class Matrices:
    def __init__(self, *arrays: list[float]) -> None:
        self.arrays = arrays


def needs_matrices(m: Matrices) -> None:
    """Its class is built from positional arguments only."""


def varargs(first: int, *rest: int) -> int:
    return first + sum(rest)


def first_is_cls(cls, x: int) -> int:
    return x


def download_data(url: str) -> None:
    """Fetch something."""


def run(cmd: str) -> None:
    subprocess.run(cmd)


def wipe(name: str) -> None:
    os.remove(name)


def old(x: int) -> int:
    """Old.

    .. deprecated:: 1.0
    """
    return x


def warns(x: int) -> int:
    warnings.warn("going away", DeprecationWarning)
    return x


def _deprecate_positional(names):
    def wrap(func):
        return func

    return wrap


@_deprecate_positional(["b"])
def keyword_later(a: int, b: int = 0) -> int:
    return a + b


def keyword_soon(a: int, b: int = 0) -> int:
    """Add.

    .. deprecated:: 2.1
        A warning is shown if ``b`` is passed as a positional argument.
    """
    return a + b


def warns_for_floats(x: float) -> float:
    if int(x) != x:
        warnings.warn("floats will be refused", DeprecationWarning)
    return x
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> CodeReport:
    root = tmp_path_factory.mktemp("members")
    (root / "members").mkdir()
    (root / "members" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    return probed(root)


@pytest.fixture(scope="module")
def by_target(report: CodeReport) -> dict[str, Candidate]:
    return {c.target.partition(":")[2]: c for c in report.candidates}


def test_classes_become_constructors_and_methods(by_target: dict[str, Candidate]) -> None:
    ctor = by_target["Accumulator"]
    assert ctor.kind == "constructor"
    assert [p.name for p in ctor.parameters] == ["start"]
    add = by_target["Accumulator.add"]
    assert add.kind == "method"
    assert add.owner == "members:Accumulator"
    handle, _value = add.parameters
    assert (handle.name, handle.kind, handle.codec) == (
        "handle",
        "positional_only",
        "new:members:Accumulator",
    )
    assert add.positional == ["handle", "value"]
    # A classmethod is a plain function of the class; properties and private names are not.
    assert by_target["Accumulator.from_list"].kind == "function"
    assert "Accumulator.doubled" not in by_target
    assert "Accumulator._private" not in by_target
    # An inherited method is listed under the subclass, with the class that defines it.
    assert add.defined_in == "members:Accumulator"
    assert by_target["Counter.add"].defined_in == "members:Accumulator"
    assert by_target["Counter.reset"].defined_in == "members:Counter"


def test_parameter_codecs(by_target: dict[str, Candidate]) -> None:
    codecs = {p.name: p.codec for p in by_target["codecs"].parameters}
    assert codecs == {
        "when": "datetime",
        "day": "date",
        "amount": "decimal",
        "part": "fraction",
        "z": "complex",
        "where": "path",
        "p": "dataclass:members:Point",
        "pair": "namedtuple:members:Pair",
        "acc": "new:members:Accumulator",
        "maybe": "date",
        "key": None,  # an abstract type: any JSON value
    }
    schemas = {p.name: p.json_schema for p in by_target["codecs"].parameters}
    assert schemas["when"]["anyOf"][0] == {"type": "string", "format": "date-time"}
    assert schemas["when"]["anyOf"][1]["required"] == ["handle"]
    assert {"type": "null"} in schemas["maybe"]["anyOf"]


def test_handle_only_parameters_are_marked(by_target: dict[str, Candidate]) -> None:
    (o,) = by_target["needs_opaque"].parameters
    assert o.codec == "handle:members:Opaque"
    assert o.json_schema["required"] == ["handle"]


def test_a_class_built_from_star_args_only_is_passed_by_handle(
    by_target: dict[str, Candidate],
) -> None:
    # Keyword arguments cannot build it: "new" would make an empty, broken object.
    (m,) = by_target["needs_matrices"].parameters
    assert m.codec == "handle:members:Matrices"


def test_star_args_become_a_list(by_target: dict[str, Candidate]) -> None:
    _first, rest = by_target["varargs"].parameters
    assert (rest.kind, rest.required) == ("var_positional", False)
    assert rest.json_schema["type"] == "array"
    assert by_target["varargs"].positional == ["first", "*rest"]


def test_callable_instances_are_functions(by_target: dict[str, Candidate]) -> None:
    assert by_target["score"].kind == "function"
    assert by_target["score"].parameters[0].kind == "var_positional"


def test_risky_callables_are_flagged(by_target: dict[str, Candidate]) -> None:
    assert by_target["download_data"].dangerous == "name suggests download"
    assert by_target["run"].dangerous == "calls subprocess.run"
    assert by_target["wipe"].dangerous == "calls os.remove"
    assert by_target["old"].deprecated
    assert by_target["warns"].deprecated
    # a warning under a condition deprecates one way of calling, not the function
    assert not by_target["warns_for_floats"].deprecated
    # so does a decorator that deprecates passing an argument by position
    assert not by_target["keyword_later"].deprecated
    assert not by_target["keyword_soon"].deprecated  # its note is about an argument
    assert not by_target["codecs"].dangerous and not by_target["codecs"].deprecated


def test_a_first_parameter_named_cls_skips_the_function(report: CodeReport) -> None:
    reasons = {s.target: s.reason for s in report.skipped}
    assert "expects a class or instance" in reasons["members:first_is_cls"]


HELD_PACKAGE = '''\
"""Unannotated parameters that take an instance a class holds."""


class Ellipsoid:
    """An ellipsoid; the class holds a standard one."""

    def __init__(self, radius: float, flattening: float) -> None:
        self.radius, self.flattening = radius, flattening


Ellipsoid.UNIT = Ellipsoid(100.0, 0.5)


class Region:
    def __init__(self, earth, others, closed=True):
        """Start a region.

        :param earth: an :class:`~held.Ellipsoid` object
        :param others: a list of :class:`Ellipsoid`
        :param closed: whether the last point joins the first
        """


def polar(shape):
    """The polar radius.

    >>> polar(Ellipsoid.UNIT)
    50.0
    """
    return shape.radius * (1 - shape.flattening)
'''


def test_an_untyped_parameter_takes_the_class_its_docs_name(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("held")
    (root / "held").mkdir()
    (root / "held" / "__init__.py").write_text(HELD_PACKAGE)
    report = probed(root)
    found = {c.target.partition(":")[2]: c for c in report.candidates}
    held_arm = {"attribute": {"enum": ["UNIT"]}}

    # the docstring's class role types ``earth``; "a list of" names no type
    region = {p.name: p for p in found["Region"].parameters}
    assert region["earth"].codec == "new:held:Ellipsoid"
    assert region["earth"].json_schema["anyOf"][-1]["properties"] == held_arm
    assert region["others"].codec is None
    assert region["closed"].json_schema.get("default") is True

    # the example that passes ``Ellipsoid.UNIT`` types ``shape``, and is kept
    [shape] = found["polar"].parameters
    assert shape.codec == "new:held:Ellipsoid"
    assert shape.json_schema["anyOf"][-1]["properties"] == held_arm
    [example] = found["polar"].examples
    assert example.arguments == {"shape": {"attribute": "UNIT"}}
    assert example.expected == 50.0


TYPED_BY_DOCS = '''\
"""NumPy-style docstring types, and nothing annotated."""


class Model:
    """A model of a function.

    Parameters
    ----------
    func : callable
        The model function.
    """

    def __init__(self, func):
        self.func = func


class Result:
    def __init__(self, model, scale=1.0):
        """A fit.

        Parameters
        ----------
        model : Model
            What was fitted.
        scale : float, optional
            A factor.
        """
        self.model, self.scale = model, scale

    def report(self):
        return "fit"


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def shift(point, by):
    """Move a point.

    Args:
        point (Point): the point.
        by (float): how far.
    """
    return Point(point.x + by, point.y)
'''


def test_docstring_types_name_classes_and_functions(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("typed")
    (root / "typed").mkdir()
    (root / "typed" / "__init__.py").write_text(TYPED_BY_DOCS)
    report = probed(root)
    found = {c.target.partition(":")[2]: c for c in report.candidates}

    # a function is no JSON: Model's constructor has no JSON form, so a Model is a handle
    result = {p.name: p for p in found["Result"].parameters}
    assert result["model"].codec == "handle:typed:Model"
    assert result["scale"].codec is None and "anyOf" not in result["scale"].json_schema
    # and a Result, whose constructor needs one, is passed by handle too (so its methods
    # are tools only where a session builds it)
    [handle, *_] = found["Result.report"].parameters
    assert handle.codec == "handle:typed:Result"
    # a Google-style "(Point)" types the argument as the class JSON can build
    point = {p.name: p for p in found["shift"].parameters}["point"]
    assert point.codec == "new:typed:Point"


def test_the_methods_the_guides_call_come_first_within_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class with more public methods than the cap keeps the one the README calls."""
    from metaserver.probe import members

    methods = "".join(f"    def m{i:02}(self):\n        return {i}\n" for i in range(60))
    package = tmp_path / "manymethods"
    package.mkdir()
    (package / "__init__.py").write_text(
        f"class Big:\n{methods}    def zeta(self):\n        pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("manymethods")

    def names() -> list[str]:
        found = members.describe_class(module.Big, "Big", module, False, "manymethods")
        return [item["name"] for item, _, _ in found if item is not None]

    members.set_guides([">>> big = Big()\n>>> big.zeta()\n"])
    try:
        assert "Big.zeta" in names()
        members.set_guides([])
        assert "Big.zeta" not in names()  # alphabetical: cut by the cap
    finally:
        members.set_guides([])


def test_a_class_that_takes_star_args_only_gets_its_advertised_names_by_position() -> None:
    import inspect as inspect_module
    import types

    from metaserver.probe.members import describe_callable

    class Advertised(type):
        @property
        def __signature__(cls) -> inspect_module.Signature:
            parameter = inspect_module.Parameter(
                "arg", inspect_module.Parameter.POSITIONAL_OR_KEYWORD
            )
            return inspect_module.Signature([parameter])

    class Cosine(metaclass=Advertised):
        """cos(x), as a class whose ``__new__`` takes ``*args``: ``Cosine(arg=1)`` fails."""

        def __new__(cls, *args: object, **options: object) -> Cosine:
            if len(args) != 1:
                raise TypeError(f"takes exactly 1 argument ({len(args)} given)")
            return super().__new__(cls)

    class Named:
        def __init__(self, arg: object) -> None:
            self.arg = arg

    module = types.ModuleType("fixture_star_args")
    candidate, reason, _ = describe_callable(
        Cosine, "Cosine", module, True, kind="constructor", owner=Cosine
    )
    assert candidate is not None, reason
    assert [(p["name"], p["kind"]) for p in candidate["parameters"]] == [("arg", "positional_only")]
    # A constructor that names its parameters keeps them as they are.
    named, reason, _ = describe_callable(
        Named, "Named", module, True, kind="constructor", owner=Named
    )
    assert named is not None, reason
    assert [p["kind"] for p in named["parameters"]] == ["positional_or_keyword"]


ARRAYS_BY_DOCS = '''\
"""Unannotated parameters whose docstrings say array."""

{imports}


def states(A, repetitions, labels=None):
    """Every state.

    Parameters
    ----------
    A : array
        2 dimensional payoff matrix.
    repetitions : int
        How many rounds.
    labels : list-like, optional
        Names.
    """
    rows, cols = A.shape
    return rows * cols * repetitions
'''


@pytest.mark.parametrize(("imports", "codec"), [("import numpy", "numpy"), ("", None)])
def test_a_parameter_documented_as_an_array_takes_one(
    tmp_path: Path, imports: str, codec: str | None
) -> None:
    (tmp_path / "arrays").mkdir()
    (tmp_path / "arrays" / "__init__.py").write_text(ARRAYS_BY_DOCS.format(imports=imports))
    report = probed(tmp_path)
    [candidate] = [c for c in report.candidates if c.target == "arrays:states"]
    found = {p.name: p for p in candidate.parameters}
    # "A : array" in a package that uses numpy: a JSON list arrives as an ndarray
    assert found["A"].codec == codec
    assert found["repetitions"].codec is None
    assert found["labels"].codec is None  # "list-like" is no array


CONTEXT_FUNCTIONS = '''\
"""Functions that take a context first, registered on it."""


def scaled(ctx, x):
    """``x`` times the context's factor.

    >>> scaled(3)
    6
    """
    return ctx.factor * x
'''

CONTEXT_PACKAGE = '''\
"""The functions a user calls are the context's bound methods, exported by name."""

from ctxpkg import functions


class Context:
    def __init__(self, factor):
        self.factor = factor


Context.scaled = functions.scaled
ctx = Context(2)
scaled = ctx.scaled
'''


def test_a_context_method_exported_as_a_function_is_the_function(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("ctx")
    (root / "ctxpkg").mkdir()
    (root / "ctxpkg" / "__init__.py").write_text(CONTEXT_PACKAGE)
    (root / "ctxpkg" / "functions.py").write_text(CONTEXT_FUNCTIONS)
    report = probed(root)
    found = {c.target: c for c in report.candidates if c.name == "scaled"}
    # the exported name, without the context parameter; the unbound function is its alias,
    # not a second tool whose first argument would be a guessed context
    assert list(found) == ["ctxpkg:scaled"]
    scaled = found["ctxpkg:scaled"]
    assert [p.name for p in scaled.parameters] == ["x"]
    assert scaled.aliases == ["ctxpkg.functions:scaled"]
    [example] = scaled.examples
    assert (example.arguments, example.expected) == ({"x": 3}, 6)


def test_a_single_dispatch_function_takes_its_first_argument_by_position() -> None:
    import functools
    import types

    from metaserver.probe.members import describe_callable

    @functools.singledispatch
    def canonical(value: object, *, strip: bool = True) -> str:
        """Canonical text."""
        return str(value)

    module = types.ModuleType("fixture_dispatch")
    candidate, reason, _ = describe_callable(canonical, "canonical", module, True)
    assert candidate is not None, reason
    # passed by keyword, the dispatcher refuses the call: it is the tool's positional one
    assert [(p["name"], p["kind"]) for p in candidate["parameters"]] == [
        ("value", "positional_only"),
        ("strip", "keyword_only"),
    ]
    assert candidate["positional"] == ["value"]


def test_a_parameter_whose_default_is_a_sentinel_is_optional_without_one() -> None:
    import enum
    import types

    from metaserver.probe.members import describe_callable

    class Undefined(enum.Enum):
        TOKEN = 0

    marker = object()

    def url(
        val: str | Undefined = Undefined.TOKEN, base: str = marker, *, strict: bool = False
    ) -> str:  # type: ignore[assignment]
        """A URL."""
        return str(val)

    # the objects themselves (this file's annotations are text, and these names are local)
    url.__annotations__ = {"val": str | Undefined, "base": str, "strict": bool, "return": str}

    module = types.ModuleType("fixture_unset")
    candidate, reason, _ = describe_callable(url, "url", module, True)
    assert candidate is not None, reason
    found = {p["name"]: p for p in candidate["parameters"]}
    # both taken, neither with a default the tool would send: left out, the callable's own
    for name in ("val", "base"):
        assert found[name]["unset_default"] is True
        assert not found[name]["required"]
        assert "default" not in found[name]["json_schema"]
    assert found["strict"]["json_schema"]["default"] is False
    assert "unset_default" not in found["strict"]


def test_a_guide_is_read_for_the_names_it_writes_after_a_dot() -> None:
    """The names a guide writes after a dot, found once, say which methods read it: the
    same guides as a search for ``.method`` as a whole word."""
    import re

    from metaserver.probe.members import _after_dots

    text = ">>> g = Grid('A1')\n>>> g . code()\n>>> g.code_point\n>>> x = 1.5\n>>> g._raw()\n"
    assert _after_dots(text) == {"code", "code_point", "5", "_raw"}
    for method in ("code", "code_point", "_raw", "cod", "point", "Grid"):
        whole = re.search(rf"\.\s*{re.escape(method)}\b", text) is not None
        assert (method in _after_dots(text)) is whole


def test_star_args_of_a_coded_type_are_decoded_item_by_item(tmp_path: Path) -> None:
    from probe_modules import guided_module

    from metaserver.probe.members import describe_callable

    source = "import datetime\n\n\ndef span(*days: datetime.date) -> int:\n    return 0\n"
    with guided_module(tmp_path, "spanfx", source, []) as module:
        candidate, why, _ = describe_callable(module.span, "span", module, True)
    # before: refused ("items need the date codec"); the runtime now decodes each item
    assert candidate is not None, why
    (days,) = candidate["parameters"]
    assert (days["kind"], days["codec"]) == ("var_positional", "date")
    assert days["json_schema"]["items"]["anyOf"][0] == {"type": "string", "format": "date"}


TALLY_TESTS = [
    ">>> from tallyfx import Tally\n>>> t = Tally()\n>>> t.add('a')\n>>> t.add('a')\n"
    ">>> t.count('a')\n2\n",
    ">>> from tallyfx import Tally\n>>> t = Tally(5)\n>>> t.add('x')\n>>> n = t.total()\n"
    ">>> n\n6\n",
]


def test_a_method_is_proven_on_the_receiver_a_test_built_never_as_the_repositorys_line(
    tmp_path: Path,
) -> None:
    from probe_modules import guided_module

    from metaserver.probe import members

    def examples() -> dict[str, list[dict[str, object]]]:
        found = members.describe_class(module.Tally, "Tally", module, True, "tallyfx")
        return {item["name"]: item["examples"] for item, _, _ in found if item is not None}

    with guided_module(tmp_path, "tallyfx", SUITE_TALLY, []) as module:
        members.set_tests(TALLY_TESTS)
        try:
            found = examples()
            members.set_tests([])
            without = examples()
        finally:
            members.set_tests([])
    count = [e for e in found["Tally.count"] if e["has_expected"]]
    assert [(e["arguments"], e["expected"], e["origin"]) for e in count] == [
        ({"item": "a"}, 2, "usage")
    ]
    # built and set up as the test did: the constructor, then add twice; no line of the
    # repository's own, so a failure of it is never blamed on the repository
    assert [step.get("member") for step in count[0]["session"]] == [None, "add", "add"]
    assert "line" not in count[0]
    (total,) = [e for e in found["Tally.total"] if e["has_expected"]]
    assert (total["expected"], total["session"][0]["arguments"]) == (6, {"start": 5})
    assert not any(e["has_expected"] for e in without["Tally.count"] + without["Tally.total"])


WAVE_TESTS = [
    ">>> from wavefx import Wave, decompose\n>>> w = Wave('db')\n"
    ">>> s, d = decompose([3, 1, 4, 1], w)\n>>> s\n[8, 10]\n"
]


def test_a_function_given_an_object_a_test_built_is_proven_by_the_tests_value(
    tmp_path: Path,
) -> None:
    from probe_modules import guided_module

    from metaserver.probe import members

    with guided_module(tmp_path, "wavefx", SUITE_WAVES, []) as module:
        members.set_tests(WAVE_TESTS)
        try:
            candidate, why, _ = members.describe_callable(
                module.decompose, "decompose", module, True
            )
            members.set_tests([])
            without, _, _ = members.describe_callable(module.decompose, "decompose", module, True)
        finally:
            members.set_tests([])
    assert candidate is not None and without is not None, why
    (example,) = [e for e in candidate["examples"] if e["has_expected"]]
    assert (example["expected"], example["part"], example["origin"]) == ([8, 10], 0, "usage")
    assert example["arguments"]["values"] == [3, 1, 4, 1]
    assert "line" not in example  # our reading of a test: never the repository's own line
    assert not any(e["has_expected"] for e in without["examples"])


def test_the_tests_examples_never_crowd_out_the_docs_own_calls() -> None:
    from metaserver.probe.doctest_lines import MAX_EXAMPLES
    from metaserver.probe.members import TEST_SHARE, _kept

    def example(name: str, shown: bool) -> dict[str, object]:
        return {"name": name, "has_expected": shown}

    docs = [example("value", True)] + [example(f"plain{i}", False) for i in range(5)]
    tests = [example(f"test{i}", True) for i in range(4)]
    kept = [e["name"] for e in _kept(docs, tests)]
    # the tests take their share, the docs keep the rest: a plain call of theirs stays
    assert len(kept) == MAX_EXAMPLES and sum(k.startswith("test") for k in kept) == TEST_SHARE
    assert kept[0] == "value" and "plain0" in kept
    # where the docs show less, the tests fill the room; values come first
    assert [e["name"] for e in _kept(docs[1:2], tests)] == [
        *(f"test{i}" for i in range(4)),
        "plain0",
    ]


def test_a_docstrings_code_without_prompts_gives_the_docs_arguments() -> None:
    import types

    from metaserver.probe.members import describe_callable

    def formula(compound: str = "", density: float | None = None) -> str:
        """A chemical formula.

        Example compounds:

           string:
              m = formula( "CaCO3+6H2O" )
           with its density:
              formula("H2O", density=1.0)
           molecular math:
              m = formula( "CaCO3" ) + 6*formula( "H2O" )
        """
        return compound

    module = types.ModuleType("fixture_code_lines")
    candidate, reason, _ = describe_callable(formula, "formula", module, True)
    assert candidate is not None, reason
    assert [(e["arguments"], e["has_expected"]) for e in candidate["examples"]] == [
        ({"compound": "CaCO3+6H2O"}, False),
        ({"compound": "H2O", "density": 1.0}, False),
    ]
