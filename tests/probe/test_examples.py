"""returned_type: what a docstring says its callable returns; documented_array: which
parameter types are numpy arrays in words; documented_type and documented_class: the
package's class a parameter's docstring names."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import numpy
import pytest

from metaserver.probe.doc_types import documented_array, documented_class, documented_type
from metaserver.probe.docstrings import parameter_types, returned_type
from metaserver.probe.doctest_lines import parsed_examples

NUMPY = """Respond.

Parameters
----------
sys : StateSpace
    The system.

Returns
-------
response : `FrequencyResponseData`
    The data.
"""


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (NUMPY, "`FrequencyResponseData`"),
        ("Make.\n\nReturns\n-------\nPoint\n    The point.\n", "Point"),
        ("Make.\n\nReturns:\n    Point: the point.\n", "Point"),
        ("Make.\n\n:rtype: Point\n", "Point"),
        ("Make a point.\n\n>>> make()\nPoint(0, 0)\n", None),
    ],
)
def test_the_first_documented_result_type(doc: str, expected: str | None) -> None:
    assert returned_type(doc) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ndarray",
        "numpy.ndarray",
        "np.array",
        "array_like, optional",
        "array",
        "(n, m) array",
        "2d array",
        "ndarray or None",
        "np.array(dim_x, 1)",
        "numpy.ndarray of shape (n,)",
        "array, shape (n, m)",
        "ArrayLike",
        ":class:`numpy.ndarray`",
    ],
)
def test_array_words_are_numpy_arrays(text: str) -> None:
    assert documented_array(text) is numpy.ndarray


@pytest.mark.parametrize(
    "text", ["float or array", "list-like", "list of arrays", "arrays", "dict of array", "", None]
)
def test_other_words_are_not(text: str | None) -> None:
    assert "numpy" in sys.modules
    assert documented_array(text) is None


def test_no_array_without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # a package that never imported numpy takes plain lists, whatever its docs say
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    assert documented_array("ndarray") is None


WORDS_CORE = """\
class Graph:
    pass


class DiGraph(Graph):
    pass


class Node:
    pass


class Array:
    pass
"""
WORDS_EXTRA = '''\
class Node:
    """A second class called Node: the word names neither."""


class Layout:
    """Defined here alone and not exported: the word still names it."""
'''
WORDS_INIT = "from wordtyped.core import Array, DiGraph, Graph\n"


@pytest.fixture(scope="module")
def wordtyped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[types.ModuleType]:
    """A package whose functions' docstrings name its classes in words."""
    root = tmp_path_factory.mktemp("words")
    (root / "wordtyped").mkdir()
    (root / "wordtyped" / "__init__.py").write_text(WORDS_INIT)
    (root / "wordtyped" / "core.py").write_text(WORDS_CORE)
    (root / "wordtyped" / "extra.py").write_text(WORDS_EXTRA)
    (root / "wordtyped" / "algo.py").write_text("def degree(G):\n    return 0\n")
    sys.path.insert(0, str(root))
    try:
        importlib.import_module("wordtyped.extra")
        yield importlib.import_module("wordtyped.algo")
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.partition(".")[0] == "wordtyped"]:
            del sys.modules[name]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("graph", "Graph"),
        ("Wordtyped graph", "Graph"),
        ("a Graph", "Graph"),
        ("graph object", "Graph"),
        ("Graph or DiGraph", "Graph"),  # the first of alternatives that all name classes
        ("a DiGraph or Graph, optional", "DiGraph"),
        ("digraph", "DiGraph"),
        ("Graph (undirected)", "Graph"),
        ("wt.Graph", "Graph"),  # the package under an import alias
        ("layout", "Layout"),  # one class of that name, defined in a submodule
        ("Array", "Array"),  # the exact spelling, as before
        ("a list of Graph", None),  # says more than one object of the class
        ("Graph or list of nodes", None),
        ("graph of nodes", None),
        ("node", None),  # two classes are called Node: the word names neither
        ("array", None),  # a plain type word is no package class
        ("int", None),
        ("a very large sparse graph", None),  # more words than modifiers allowed
    ],
)
def test_a_type_text_names_a_class_of_the_package_in_words(
    wordtyped: types.ModuleType, text: str, expected: str | None
) -> None:
    found = documented_type(text, wordtyped)
    assert (found.__name__ if found is not None else None) == expected


def test_a_whole_description_names_a_class_in_words(wordtyped: types.ModuleType) -> None:
    graph = sys.modules["wordtyped"].Graph
    assert documented_class("A Wordtyped graph.", wordtyped) is graph
    assert documented_class("A graph whose nodes are ints.", wordtyped) is None
    # numpy-style: the type line names it, the described text is not needed
    types_ = parameter_types("Degree.\n\nParameters\n----------\nG : graph\n    Any.\n")
    assert documented_type(types_["G"], wordtyped) is graph


def test_lines_without_continuation_prompts_are_one_statement() -> None:
    doc = """
>>> h = Point('A',
           coords=[[0, 0],
                   [0, 1]])
>>> h.norm()
1.0
>>> text = "("
>>> text
'('
"""
    first, second, assigned, shown = parsed_examples(doc)
    # the lines doctest took for the first line's output close its bracket: one statement
    assert first.source.startswith("h = Point('A',\n") and first.source.endswith("[0, 1]])\n")
    assert first.want == ""
    assert (second.source, second.want) == ("h.norm()\n", "1.0\n")
    # a bracket inside a string opens nothing; an output that completes nothing stays one
    assert assigned.want == ""
    assert (shown.source, shown.want) == ("text\n", "'('\n")


def test_an_import_line_binds_the_packages_attribute_before_its_submodule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ast

    from metaserver.probe.doctest_lines import bind_imports

    # ``from cronpkg import cronpkg``: the package exports a class over its module's name
    (tmp_path / "cronpkg").mkdir()
    (tmp_path / "cronpkg" / "__init__.py").write_text("from .cronpkg import cronpkg\n")
    (tmp_path / "cronpkg" / "cronpkg.py").write_text("class cronpkg:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    package = importlib.import_module("cronpkg")
    try:
        namespace: dict[str, object] = {}
        bind_imports(ast.parse("from cronpkg import cronpkg").body[0], namespace)
        assert namespace["cronpkg"] is package.cronpkg
        assert isinstance(namespace["cronpkg"], type)
    finally:
        for name in ("cronpkg", "cronpkg.cronpkg"):
            sys.modules.pop(name, None)
