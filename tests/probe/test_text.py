"""A call's result shown as text (``str(...)``, ``print(...)``, ``repr(...)``): the call is
an example, and the text it shows its expected value (wrapper ``"str"``)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe.built_arguments import value_examples
from metaserver.probe.members import describe_callable, describe_class
from metaserver.probe.text import shown_as_text

SOURCE = '''
class Tag:
    """A release tag: its text is ``1.4``, its repr ``Tag('1.4')``.

    >>> t = Tag("1.4")
    >>> str(t.bump())
    '2.0'
    >>> print(t.bump(3))
    4.0
    >>> repr(Tag("3.1").bump())
    "Tag('4.0')"
    >>> str(t)
    '1.4'
    >>> str(len(t.name))
    '3'
    >>> str(other.bump())
    '9.0'
    """

    def __init__(self, name):
        self.name = name

    def bump(self, step=1):
        return Tag(f"{int(self.name.partition('.')[0]) + step}.0")

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Tag({self.name!r})"


def label(major, minor=0):
    """A tag's text.

    >>> str(label(2, 1))
    '2.1'
    >>> print(label(3))
    3.0
    >>> str(label(4))
    4.0
    """
    return f"{major}.{minor}"


def joined(a, b):
    """Two tags.

    >>> print(joined(Tag("1.0"), Tag("2.0")))
    1.0+2.0
    """
    return f"{a}+{b}"
'''


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "textfx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("textfx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["textfx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["textfx"]


def shown(source: str, want: str) -> tuple[str, str | None, str]:
    node, wrapper, text = shown_as_text(ast.parse(source, mode="eval").body, want)
    return ast.unparse(node), wrapper, text


def test_a_reader_of_a_call_gives_the_call_and_its_text() -> None:
    # str shows a string literal, print the bare text: both the text, as a literal for _item
    assert shown("str(v.bump())", "'2.0'\n") == ("v.bump()", "str", "'2.0'")
    assert shown("print(f(1))", "a b\n") == ("f(1)", "str", "'a b'")
    # repr: the text the line would have shown without it
    assert shown("repr(f(1))", "'Tag(1)'") == ("f(1)", None, "Tag(1)")
    # str shown without quotes is no doctest's output: the call, and nothing to read
    assert shown("str(f(1))", "2.0") == ("f(1)", None, "")
    raised = "Traceback (most recent call last):\n  ...\nValueError: no\n"
    assert shown("print(f(0))", raised) == ("f(0)", None, "")
    # no call inside, or a builtin's: the line as it is
    assert shown("str(v)", "'1'") == ("str(v)", None, "'1'")
    assert shown("str(len(v))", "'1'") == ("str(len(v))", None, "'1'")
    assert shown("print(f(1), f(2))", "1 2") == ("print(f(1), f(2))", None, "1 2")


def test_a_call_compared_with_a_literal_shown_true_is_that_literal() -> None:
    assert shown("img.shape() == (2, 3)", "True\n") == ("img.shape()", None, "(2, 3)")
    assert shown("f(1) == 0.5", "True") == ("f(1)", None, "0.5")
    # the call all the same, showing nothing we read: an object, another comparison, False
    assert shown("img.dtype() == np.dtype(np.int16)", "True") == ("img.dtype()", None, "")
    assert shown("f(1) != 2", "True") == ("f(1)", None, "")
    assert shown("f(1) == 2", "False") == ("f(1)", None, "")
    # no call on the left: the line as it is
    assert shown("x == 2", "True") == ("x == 2", None, "True")


def examples(module: ModuleType, cls: str, method: str) -> list[dict[str, Any]]:
    described = describe_class(getattr(module, cls), cls, module, True, "textfx")
    (found,) = [c for c, _, t in described if t == f"textfx:{cls}.{method}"]
    assert found is not None
    return list(found["examples"])


def test_a_methods_text_is_its_expected_value_on_the_receiver_built(module: ModuleType) -> None:
    found = examples(module, "Tag", "bump")
    proofs = {e["line"]: e for e in found if e["has_expected"]}
    assert set(proofs) == {"str(t.bump())", "print(t.bump(3))", 'repr(Tag("3.1").bump())'}
    text = proofs["str(t.bump())"]
    assert (text["wrapper"], text["expected"], text["arguments"]) == ("str", "2.0", {})
    assert [s["line"] for s in text["session"]] == ['t = Tag("1.4")']
    printed = proofs["print(t.bump(3))"]
    assert (printed["wrapper"], printed["expected"], printed["arguments"]) == (
        "str",
        "4.0",
        {"step": 3},
    )
    # repr(...) reads as the plain line would: a value in repr style
    shown_repr = proofs['repr(Tag("3.1").bump())']
    assert (shown_repr["wrapper"], shown_repr["expected"]) == ("repr", "Tag('4.0')")
    # other.bump(): a receiver the session never built, its text no expected value
    assert [e["has_expected"] for e in found].count(False) == 1


def test_a_functions_text_is_its_expected_value(module: ModuleType) -> None:
    candidate, _, _ = describe_callable(module.label, "label", module, True)
    assert candidate is not None
    assert [(e.get("line"), e["wrapper"], e["expected"]) for e in candidate["examples"]] == [
        ("str(label(2, 1))", "str", "2.1"),
        ("print(label(3))", "str", "3.0"),
        (None, None, None),  # str(label(4)) shown without quotes: arguments only
    ]


def test_a_printed_call_with_built_arguments_is_checked_by_its_text(module: ModuleType) -> None:
    func = module.joined
    signature = inspect.signature(func)
    (found,) = value_examples(func, module, func.__doc__, signature, {"a", "b"}, "textfx")
    assert (found["wrapper"], found["expected"], found["line"]) == (
        "str",
        "1.0+2.0",
        'print(joined(Tag("1.0"), Tag("2.0")))',
    )
    assert [s["into"] for s in found["session"]] == ["a", "b"]


COMPARED = '''
class Grid:
    """A grid.

    >>> g = Grid(2, 3)
    >>> g.size() == 6
    True
    >>> g.dims() == (2, 3)
    True
    """

    def __init__(self, w, h):
        self.w, self.h = w, h

    def size(self):
        return self.w * self.h

    def dims(self):
        return (self.w, self.h)


def area(w, h):
    """Area.

    >>> area(2, 3) == 6
    True
    """
    return w * h
'''


def test_a_line_that_compares_a_call_with_a_literal_is_its_example(tmp_path: Path) -> None:
    from probe_modules import guided_module

    with guided_module(tmp_path, "gridfx", COMPARED, []) as loaded:
        described = describe_class(loaded.Grid, "Grid", loaded, True, "gridfx")
        found = {t: c for c, _, t in described if c is not None}
        function, _, _ = describe_callable(loaded.area, "area", loaded, True)
    (dims,) = found["gridfx:Grid.dims"]["examples"]
    assert (dims["expected"], dims["has_expected"]) == ([2, 3], True)
    assert dims["line"] == "g.dims() == (2, 3)"
    # the receiver the session built, its earlier call replayed as the doc made it
    assert [s["line"] for s in dims["session"]] == ["g = Grid(2, 3)", "g.size() == 6"]
    assert function is not None
    (area,) = function["examples"]
    assert (area["arguments"], area["expected"]) == ({"w": 2, "h": 3}, 6)
