"""The analysis probe, run as it is in production: a script in the target's interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from probe_modules import probed_package

from metaserver.agents.analysis.analyse import PROBE
from metaserver.contracts import Candidate, CodeReport, Parameter
from metaserver.probe.arguments import ANY_JSON

PACKAGE_INIT = '''\
"""A package exercising every path of the probe."""

from __future__ import annotations

import enum
from os.path import join  # re-exported from the standard library: not a tool
from typing import Literal, Optional

from ._impl import helper  # public through the package, defined in a private module


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Widget:
    pass


def typed(
    i: int,
    f: float,
    s: str,
    b: bool,
    li: list[int],
    d: dict[str, int],
    o: Optional[int],
    lit: Literal["a", "b"],
    c: Colour,
    t: tuple[int, str],
    tv: tuple[float, ...],
) -> None:
    """Every annotation with a JSON form."""


def untyped(x, y=3, z=None):
    """No annotations at all."""


def hidden_defaults(x: int, sentinel: object = object(), limit: float = float("inf"), cb=print):
    """Optional parameters whose defaults JSON cannot hold."""
    return x


def needs_bytes(x: int, mode: Literal[b"raw"]):
    """A required parameter with no JSON form."""


def needs_private(_token):
    """A required parameter no tool argument can be named after."""


def star(*values: int) -> int:
    """Variadic positional parameters of plain data."""
    return sum(values)


def widgets(*items: Widget) -> int:
    """Variadic positional parameters of objects."""
    return len(items)


def options(a: int, **extra) -> int:
    """Variadic keyword parameters."""
    return a


def kinds(a: int, /, b: int, *, c: int = 1) -> int:
    """Each parameter kind."""
    return a + b + c


def google(count: int, label: str = "x") -> str:
    """Google-style parameter docs.

    Args:
        count (int): how many times.
        label: what to repeat.

    Returns:
        The label, repeated.
    """
    return label * count


def rest(a, b):
    """reST-style parameter docs.

    :param a: the first thing
    :param int b: the second thing
    :returns: nothing useful
    """


def numpy_style(a: int, b: float = 1.0) -> float:
    """NumPy-style parameter docs.

    Parameters
    ----------
    a : int
        The whole part.
    b : float, optional
        The scale.
    """
    return a * b


def add(x: int, y: int = 1) -> int:
    """Add.

    >>> add(1, 2)
    3
    >>> add(x=5)
    6
    >>> add(len("abc"), 1)
    4
    >>> add(-1, 0)
    Traceback (most recent call last):
    ...
    ValueError: negative
    >>> add(2, 2) + 1
    5
    >>> value = add(7, 7)
    """
    if x < 0:
        raise ValueError("negative")
    return x + y


def letters(text: str) -> set[str]:
    """The distinct letters.

    >>> sorted(letters("cab"))
    ['a', 'b', 'c']
    >>> letters("ab")
    {'a', 'b'}
    >>> letters("aa") == {"a"}
    True
    """
    return set(text)


def countdown(n: int):
    """Count down.

    >>> list(countdown(3))
    [3, 2, 1]
    """
    yield from range(n, 0, -1)


def word_counts(text: str) -> dict[str, int]:
    """Counts.

    >>> word_counts("a b a")
    {'a': 2, 'b': 1}
    >>> word_counts("x")["x"]
    1
    """
    return {}


def mean(values: list[float]) -> float:
    """Mean.

    >>> mean([1.0, 2.0, 6.0])
    3.0
    >>> mean([1, 2])
    1.5
    """
    return sum(values) / len(values)


def make_widget(name: str) -> Widget:
    """No expected value a literal can hold.

    >>> make_widget("w")
    <Widget w>
    """
    return Widget()


def third(n: int) -> object:
    """A value shown as its type's constructor call.

    >>> third(1)
    Fraction(1, 3)
    >>> third(2)
    Widget(2, 3)
    """
    return n


def _private(x: int) -> int:
    return x
'''

SUBMODULE = '''\
"""A submodule with __all__."""

from json import dumps

__all__ = ["exported", "dumps", "MISSING"]


def exported(a: int) -> int:
    """Listed in __all__."""
    return a


def not_exported(a: int) -> int:
    """Public by name, but left out of __all__."""
    return a
'''

FILES = {
    "probepkg/__init__.py": PACKAGE_INIT,
    "probepkg/sub.py": SUBMODULE,
    "probepkg/_impl.py": 'def helper(x: int) -> int:\n    """Help."""\n    return x\n',
    "probepkg/badsub.py": 'raise ImportError("badsub needs a missing extension")\n',
    "probepkg/tests/__init__.py": "def test_something():\n    pass\n",
    "broken.py": 'raise RuntimeError("boom at import")\n',
    "exits.py": "import sys\nsys.exit(3)\n",
    "flat.py": 'def flat_function(a: int) -> int:\n    """A top-level module."""\n    return a\n',
    "setup.py": "def setup_helper():\n    pass\n",
}


def run_probe(directory: Path, output: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", str(PROBE), "--output", str(output), "--path", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[CodeReport, dict[str, Any]]:
    root = tmp_path_factory.mktemp("probe")
    tree = root / "tree"
    for name, text in FILES.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    output = root / "report.json"
    completed = run_probe(tree, output)
    assert completed.returncode == 0, completed.stderr
    raw = json.loads(output.read_text())
    return CodeReport.model_validate(raw), raw


@pytest.fixture(scope="module")
def report(probe_run: tuple[CodeReport, dict[str, Any]]) -> CodeReport:
    return probe_run[0]


@pytest.fixture(scope="module")
def by_name(report: CodeReport) -> dict[str, Candidate]:
    return {c.name: c for c in report.candidates}


def params(candidate: Candidate) -> dict[str, Parameter]:
    return {p.name: p for p in candidate.parameters}


def reasons(report: CodeReport) -> dict[str, str]:
    return {s.target: s.reason for s in report.skipped}


def test_report_is_written_as_valid_json(probe_run: tuple[CodeReport, dict[str, Any]]) -> None:
    report, raw = probe_run
    assert set(raw) == {"packages", "candidates", "skipped", "unread"}
    assert raw["unread"] == []  # no budget given: everything is read
    # The document is strict JSON (no NaN or Infinity) so any client can read it.
    json.dumps(raw, allow_nan=False)
    assert report.candidates


def test_packages_come_from_the_path(report: CodeReport) -> None:
    assert set(report.packages) == {"broken", "exits", "flat", "probepkg"}


def test_public_functions_and_only_those(by_name: dict[str, Candidate]) -> None:
    functions = {name for name, c in by_name.items() if c.kind == "function"}
    assert functions == {
        "typed",
        "untyped",
        "hidden_defaults",
        "options",
        "star",
        "widgets",
        "kinds",
        "google",
        "rest",
        "numpy_style",
        "add",
        "letters",
        "countdown",
        "word_counts",
        "mean",
        "make_widget",
        "third",
        "helper",
        "exported",
        "flat_function",
    }
    assert by_name["helper"].target == "probepkg:helper"
    assert by_name["exported"].target == "probepkg.sub:exported"
    assert by_name["flat_function"].target == "flat:flat_function"
    # A class of the package is its constructor; an Enum is a parameter type, not a tool.
    assert by_name["Widget"].kind == "constructor"
    assert "Colour" not in by_name


def test_all_and_top_level_flags(by_name: dict[str, Candidate]) -> None:
    assert by_name["exported"].in_all
    assert not by_name["exported"].top_level
    assert not by_name["add"].in_all
    assert by_name["add"].top_level
    assert by_name["flat_function"].top_level


def test_typed_parameters_get_json_schemas(by_name: dict[str, Candidate]) -> None:
    schemas = {p.name: p.json_schema for p in by_name["typed"].parameters}
    assert schemas == {
        "i": {"type": "integer"},
        "f": {"type": "number"},
        "s": {"type": "string"},
        "b": {"type": "boolean"},
        "li": {"type": "array", "items": {"type": "integer"}},
        "d": {"type": "object", "additionalProperties": {"type": "integer"}},
        "o": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "lit": {"enum": ["a", "b"]},
        "c": {"enum": ["red", "green"]},
        "t": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
        "tv": {"type": "array", "items": {"type": "number"}},
    }
    assert all(p.required for p in by_name["typed"].parameters)


def test_unannotated_parameters_accept_anything(by_name: dict[str, Candidate]) -> None:
    # Nothing types them: said so (any JSON value), or typed by the default (issue 28).
    found = params(by_name["untyped"])
    assert found["x"].json_schema == {"description": ANY_JSON}
    assert found["x"].description == ANY_JSON
    assert found["x"].required
    assert found["y"].json_schema == {"default": 3, "type": "number"}
    assert found["z"].json_schema == {"default": None, "description": ANY_JSON}
    assert (found["y"].required, found["y"].default) == (False, 3)
    assert (found["z"].required, found["z"].default) == (False, None)


def test_optional_non_json_defaults_are_hidden_unless_typed(by_name: dict[str, Candidate]) -> None:
    candidate = by_name["hidden_defaults"]
    # ``limit: float = inf`` is a float the tool takes; left out, the callable's inf applies
    assert [(p.name, p.unset_default) for p in candidate.parameters] == [
        ("x", False),
        ("limit", True),
    ]
    assert set(candidate.hidden_parameters) == {"sentinel", "cb"}


def test_required_parameters_without_a_json_form_skip_the_callable(report: CodeReport) -> None:
    found = reasons(report)
    assert "'mode'" in found["probepkg:needs_bytes"]
    assert "no JSON form" in found["probepkg:needs_bytes"]
    assert "'_token'" in found["probepkg:needs_private"]


def test_star_args_of_plain_data_are_a_list(by_name: dict[str, Candidate]) -> None:
    (values,) = by_name["star"].parameters
    assert values.kind == "var_positional"
    assert values.json_schema == {"type": "array", "items": {"type": "integer"}, "default": []}
    assert not values.required


def test_star_args_of_objects_are_a_list_decoded_item_by_item(
    by_name: dict[str, Candidate],
) -> None:
    # each item an object of the class, by its codec (runtime/call.py decodes them one by one)
    (items,) = by_name["widgets"].parameters
    assert items.kind == "var_positional"
    assert (items.codec or "").endswith(":probepkg:Widget")


def test_star_kwargs_are_hidden(by_name: dict[str, Candidate]) -> None:
    candidate = by_name["options"]
    assert [p.name for p in candidate.parameters] == ["a"]
    assert candidate.hidden_parameters == ["extra"]


def test_parameter_kinds(by_name: dict[str, Candidate]) -> None:
    found = params(by_name["kinds"])
    assert found["a"].kind == "positional_only"
    assert found["b"].kind == "positional_or_keyword"
    assert found["c"].kind == "keyword_only"
    assert (found["c"].required, found["c"].default) == (False, 1)
    assert by_name["kinds"].signature == "kinds(a: 'int', /, b: 'int', *, c: 'int' = 1) -> 'int'"


def test_google_parameter_docs(by_name: dict[str, Candidate]) -> None:
    found = params(by_name["google"])
    assert found["count"].description == "how many times."
    assert found["label"].description == "what to repeat."
    assert found["count"].json_schema["description"] == "how many times."
    assert by_name["google"].summary == "Google-style parameter docs."


def test_rest_parameter_docs(by_name: dict[str, Candidate]) -> None:
    found = params(by_name["rest"])
    assert found["a"].description == "the first thing"
    assert found["b"].description == "the second thing"


def test_numpy_parameter_docs(by_name: dict[str, Candidate]) -> None:
    found = params(by_name["numpy_style"])
    assert found["a"].description == "The whole part."
    assert found["b"].description == "The scale."


def test_doctest_examples_with_literal_arguments(by_name: dict[str, Candidate]) -> None:
    examples = by_name["add"].examples
    # len("abc") of a literal folds to 3 (fold.py), the ValueError example is no example,
    # ``add(2, 2) + 1`` does not show add's own result, and an assignment shows nothing:
    # its call is an example with no output to compare.
    assert [(e.arguments, e.expected, e.has_expected) for e in examples] == [
        ({"x": 1, "y": 2}, 3, True),
        ({"x": 5}, 6, True),
        ({"x": 3, "y": 1}, 4, True),
        ({"x": 7, "y": 7}, None, False),
    ]
    assert all(e.origin == "doctest" and e.wrapper is None for e in examples)


def test_doctest_wrappers(by_name: dict[str, Candidate]) -> None:
    (countdown,) = by_name["countdown"].examples
    assert (countdown.arguments, countdown.expected, countdown.wrapper) == (
        {"n": 3},
        [3, 2, 1],
        "list",
    )
    letters = by_name["letters"].examples
    assert [(e.arguments, e.expected, e.wrapper) for e in letters] == [
        ({"text": "cab"}, ["a", "b", "c"], "sorted"),
        ({"text": "ab"}, ["a", "b"], "set"),
        # ``letters("aa") == {"a"}`` shown True: the literal it equals (probe/text.py)
        ({"text": "aa"}, ["a"], "set"),
    ]


def test_expected_values_are_parsed(by_name: dict[str, Candidate]) -> None:
    (counts,) = by_name["word_counts"].examples
    assert counts.expected == {"a": 2, "b": 1}
    means = by_name["mean"].examples
    assert [(e.arguments, e.expected) for e in means] == [
        ({"values": [1.0, 2.0, 6.0]}, 3.0),
        ({"values": [1, 2]}, 1.5),
    ]


def test_unparseable_output_keeps_the_call_and_its_text_read_only_where_shown(
    by_name: dict[str, Candidate],
) -> None:
    (example,) = by_name["make_widget"].examples
    assert example.arguments == {"name": "w"}
    # ``<Widget w>``: compared with the answer's repr as doctest compares text; where the
    # answer does not show it, the call passes by no-error (validate/calls._check)
    assert (example.expected, example.wrapper) == ("<Widget w>", "ellipsis")
    assert example.shown_loosely


def test_repr_style_output_is_a_value_in_shapes_validation_reads_else_text(
    by_name: dict[str, Candidate],
) -> None:
    fraction, record = by_name["third"].examples
    assert (fraction.expected, fraction.wrapper, fraction.has_expected) == (
        "Fraction(1, 3)",
        "repr",
        True,
    )
    # ``Widget(2, 3)``: no shape validation reads as a value; read as text, where shown
    assert (record.arguments, record.expected, record.wrapper) == (
        {"n": 2},
        "Widget(2, 3)",
        "ellipsis",
    )


def test_failing_imports_are_reported_not_fatal(report: CodeReport) -> None:
    found = reasons(report)
    assert found["broken"] == "import failed: RuntimeError: boom at import"
    assert found["exits"].startswith("import failed: SystemExit")
    assert found["probepkg.badsub"].startswith("import failed: ImportError")


def test_private_test_and_stdlib_names_are_excluded(report: CodeReport) -> None:
    functions = {c.target for c in report.candidates}
    functions |= {s.target for s in report.skipped if ":" in s.target}
    names = {target.split(":")[1] for target in functions}
    assert not names & {"join", "dumps", "_private", "not_exported", "test_something"}
    assert not names & {"setup_helper", "Colour", "MISSING"}
    assert not any(t.startswith(("probepkg._impl", "probepkg.tests", "setup")) for t in functions)


def test_a_module_whose_import_raises_alone(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "only.py").write_text("raise ValueError('nope')\n")
    output = tmp_path / "report.json"
    completed = run_probe(tmp_path / "tree", output)
    assert completed.returncode == 0, completed.stderr
    report = CodeReport.model_validate_json(output.read_text())
    assert report.packages == ["only"]
    assert report.candidates == []
    assert [s.target for s in report.skipped] == ["only"]


def test_stdout_noise_from_imported_code_does_not_corrupt_the_report(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "noisy.py").write_text(
        'print("{not json")\n\ndef f(a: int) -> int:\n    """F."""\n    return a\n'
    )
    output = tmp_path / "report.json"
    completed = run_probe(tmp_path / "tree", output)
    assert completed.returncode == 0, completed.stderr
    report = CodeReport.model_validate_json(output.read_text())
    assert [c.target for c in report.candidates] == ["noisy:f"]


def test_a_module_the_guides_import_from_is_walked_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A callable is listed under the first path met: the module the README imports it
    from, not an earlier module (alphabetically) that re-exports it."""
    from metaserver.probe.script import guide_modules, walk_modules

    package = tmp_path / "walkorder"
    (package / "io").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "aims.py").write_text("from walkorder.io import write\n")
    (package / "io" / "__init__.py").write_text("def write(name, obj):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    guides = [
        ">>> import walkorder.io as wio, numpy\n"
        ">>> from walkorder.io import write\n"
        ">>> from walkorder.missing import nothing\n"  # not a module: no error listed
    ]
    assert guide_modules(guides, "walkorder") == ["walkorder.io", "walkorder.missing"]
    errors: list[dict[str, str]] = []
    names = [m.__name__ for m in walk_modules("walkorder", errors, guides)]
    assert names == ["walkorder", "walkorder.io", "walkorder.aims"]
    assert errors == []
    assert [m.__name__ for m in walk_modules("walkorder", [])] == [
        "walkorder",
        "walkorder.aims",
        "walkorder.io",
    ]


def test_name_steps_names_classes_by_their_constructors() -> None:
    from metaserver.probe.script import name_steps

    constructor = {"target": "pkg:Signal", "kind": "constructor", "examples": []}
    listed_by_a_method = {"target": "pkg:Abstract.level", "kind": "method"}
    factory = {"target": "pkg:signal", "kind": "function", "_returns": 1, "examples": []}
    child = {"target": "pkg:Tone", "kind": "constructor", "_bases": [1, 2], "examples": []}
    typed = {"line": "s = Signal(...)", "_id": 2, "member": None, "typed": True, "into": "s"}
    user = {
        "target": "pkg:gain",
        "kind": "function",
        "examples": [{"arguments": {}, "session": [typed]}],
    }
    seen = {1: constructor, 2: listed_by_a_method}

    name_steps([constructor, factory, child, user], seen)

    assert factory["returns"] == "pkg:Signal" and "_returns" not in factory
    assert child["bases"] == ["pkg:Signal"]  # a class listed by a method alone is left out
    assert user["examples"] == []  # its typed step names no constructor: no tool builds it


ORBIT = '''
class Orbit:
    def __init__(self, scale):
        self.scale = scale

    def positions(self, times):
        """Positions for a NumPy array of times (this package never imports numpy)."""
        return (times * self.scale).tolist()
'''

ORBIT_README = """
>>> import numpy as np
>>> from orbitfx import Orbit
>>> orbit = Orbit(2)
>>> times = np.array((1.0, 2.5))
>>> orbit.positions(times)
[2.0, 5.0]
"""


def test_arrays_the_readme_builds_with_numpy_are_examples_where_the_package_never_imports_it(
    tmp_path: Path,
) -> None:
    report = probed_package(tmp_path, "orbitfx", ORBIT, [ORBIT_README])
    [positions] = [c for c in report.candidates if c.target == "orbitfx:Orbit.positions"]
    [example] = positions.examples
    assert (example.arguments, example.expected) == ({"times": [1.0, 2.5]}, [2.0, 5.0])
    assert {p.name: p.codec for p in positions.parameters}["times"] == "numpy"


LAZY = '''
def _get_path(name):
    """The path of the example dataset called ``name``."""
    return name + ".dcm"


def __getattr__(name):
    if name == "get_path":
        return _get_path
    raise AttributeError(name)
'''

LAZY_README = """
>>> import lazyfx
>>> lazyfx.get_path("ct")
'ct.dcm'
"""


def test_a_function_a_modules_getattr_answers_is_listed_when_the_guides_call_it(
    tmp_path: Path,
) -> None:
    report = probed_package(tmp_path, "lazyfx", LAZY, [LAZY_README])
    [found] = [c for c in report.candidates if c.target == "lazyfx:get_path"]
    [example] = found.examples
    assert (example.arguments, example.expected) == ({"name": "ct"}, "ct.dcm")
    assert not found.in_all
