"""documented_array: which parameter types are numpy arrays in words; documented_type and
documented_class: the package's class a parameter's docstring names (probe/doc_types.py)."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator

import numpy
import pytest

from metaserver.probe.doc_types import documented_array, documented_class, documented_type
from metaserver.probe.docstrings import parameter_types


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
        ":py:class:`~numpy.ndarray`",
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
