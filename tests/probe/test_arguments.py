"""Arguments as scientists pass them (probe/arguments.py): functions as expressions, sets and
tuples, files, and untyped parameters that say what they take."""

from __future__ import annotations

import inspect
import sys
import types
import typing
from collections.abc import Callable

import pytest

from metaserver.probe.arguments import (
    ANY_JSON,
    array_codec,
    container_codec,
    container_typed,
    function_variables,
    reads_file,
    refined_parameter,
    takes_function,
    words_schema,
)

EMPTY = inspect.Parameter.empty


def test_a_documented_callable_takes_an_expression_in_its_documented_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "numpy", raising=False)  # a library without numpy
    schema, codec, said = refined_parameter(
        typing.Callable, "callable f(x, *args)", EMPTY, {}, None, "quadpack.core", "The integrand."
    )
    assert codec == "expression:x@quadpack"
    assert schema["anyOf"][0]["type"] == "string"
    assert "pattern" not in schema["anyOf"][0]
    assert said is not None and said.startswith("The integrand. A function of x")
    assert "exp(-x**2)" in said
    # A numpy-based library (numpy imported): numpy's vectorised functions by name too.
    monkeypatch.setitem(sys.modules, "numpy", types.ModuleType("numpy"))
    codec = refined_parameter(typing.Callable, None, EMPTY, {}, None, "quadpack")[1]
    assert codec == "expression:x@quadpack,numpy"


def test_variable_names_from_the_signature_the_docs_write_else_the_arity() -> None:
    assert function_variables(EMPTY, "callable f(x, *args)") == ["x"]
    assert function_variables(EMPTY, "callable", "The model ``fun(t, a, b)``.") == ["t", "a", "b"]
    assert function_variables(Callable[[float, float], float], None) == ["x", "y"]
    assert function_variables(Callable[[int, int, int, int], int], None) == [
        "x0",
        "x1",
        "x2",
        "x3",
    ]
    assert function_variables(EMPTY, "function") == ["x"]


def test_what_takes_a_function() -> None:
    assert takes_function(Callable[[float], float], None)
    assert takes_function(EMPTY, "callable, optional")
    assert takes_function(EMPTY, "function")
    assert not takes_function(EMPTY, "float")
    assert not takes_function(int, "functional form name")


def test_sets_and_tuples_by_annotation_or_words() -> None:
    assert container_codec(set[str], None) == "set"
    assert container_codec(frozenset[int], None) == "frozenset"
    assert container_codec(tuple[int, int], None) == "tuple"
    assert container_codec(EMPTY, "set of str") == "set"
    assert container_codec(EMPTY, "tuple, optional") == "tuple"
    assert container_codec(EMPTY, "set or list") is None  # a list is as good: plain JSON
    assert container_codec(list[int], "set of int") is None  # the annotation decides


def test_untyped_parameters_say_what_they_take() -> None:
    assert words_schema("float") == {"type": "number"}
    assert words_schema("int or tuple of ints, optional") == {
        "anyOf": [{"type": "integer"}, {"type": "array"}]
    }
    assert words_schema("Foo or int") is None
    # numpydoc's choices, beside the types the rest allows: never the default's type alone
    assert words_schema("{'scale', 'auto'} or float, default='scale'") == {
        "anyOf": [{"enum": ["scale", "auto"]}, {"type": "number"}]
    }
    assert words_schema("{'l1', 'l2', None}, default='l2'") == {"enum": ["l1", "l2", None]}
    assert words_schema("bool or 'auto'") == {"anyOf": [{"enum": ["auto"]}, {"type": "boolean"}]}
    assert words_schema("{'a', f(x)}") is None
    refined = refined_parameter(EMPTY, None, 0.5, {"default": 0.5}, None, "pkg")
    assert refined == ({"default": 0.5, "type": "number"}, None, None)
    assert refined_parameter(EMPTY, None, EMPTY, {}, None, "pkg") == (
        {"description": ANY_JSON},
        None,
        ANY_JSON,
    )
    described = refined_parameter(EMPTY, None, EMPTY, {"description": "Any."}, None, "pkg", "Any.")
    assert described == ({"description": "Any."}, None, "Any.")
    typed = refined_parameter(int, None, EMPTY, {"type": "integer"}, None, "pkg", name="path")
    assert typed == ({"type": "integer"}, None, None)  # an annotation is never overridden


def test_files_by_name_or_words_and_not_outputs() -> None:
    assert reads_file("fname", None, None)
    assert reads_file("input_path", None, None)
    assert reads_file("log", "str", "Path to the Gaussian log file.")
    assert reads_file("source", "str or file-like", None)
    assert not reads_file("outfile", "str", "Where the output is written.")
    assert not reads_file("mode", "str", "How to read the table.")
    # A name the callable looks up in its own data folder: a work path would break it.
    assert not reads_file("name", "str", "The full file name (without path)")
    assert not reads_file("filename", "str", "The file's name, not a full path.")
    schema, codec, _ = refined_parameter(EMPTY, "str", EMPTY, {}, None, "pkg", None, "fname")
    assert codec == "file"
    forms = [set(arm.get("required", [])) for arm in schema["anyOf"]]
    assert forms == [set(), {"content"}, {"base64"}]


def test_set_and_tuple_literals_in_a_doctest_give_their_parameters_the_codec() -> None:
    def common(first, second, third=None):  # type: ignore[no-untyped-def]
        return first

    doc = ">>> common({'a', 'b'}, frozenset(['b']), third=[1])\n['b']\n"
    doc += ">>> common(1, 2, third=([0, 1], [1, 0]))\n1\n"
    params = [
        {"name": n, "json_schema": {"description": ANY_JSON}, "codec": None, "description": None}
        for n in ("first", "second", "third", "fourth")
    ]
    container_typed(params, doc, {"common"}, inspect.signature(common))
    assert [(p["codec"], p["json_schema"]) for p in params] == [
        ("set", {"type": "array"}),
        ("frozenset", {"type": "array"}),
        # the first call's list says nothing; the second's tuple does
        ("tuple", {"type": "array"}),
        (None, {"description": ANY_JSON}),
    ]


def test_an_array_codec_carries_the_documented_item_type() -> None:
    assert array_codec("array_like of float") == "numpy:float64"
    assert array_codec("(N,) int ndarray, optional") == "numpy:int64"
    assert array_codec("ndarray of shape (n,)") == "numpy"
    assert array_codec("float or ndarray") == "numpy"  # the array is not the first type
    refined = refined_parameter(EMPTY, "array_like of float", EMPTY, {}, "numpy", "pkg")
    assert refined[1] == "numpy:float64"


def test_a_path_of_nodes_is_no_file() -> None:
    assert not reads_file("path", "list of nodes", "A path in the graph.")
    assert not reads_file("path", None, "A sequence of nodes.")
    assert reads_file("path", None, "The data file to read, a sequence of records.")
