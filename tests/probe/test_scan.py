"""scan and the probe's reading of a method's texts: work done once, not per class."""

from __future__ import annotations

import inspect
import sys
import textwrap
from typing import Any

import pytest


def test_an_inherited_method_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from metaserver.probe import scan

    reads: list[object] = []
    real = scan.source_tree

    def counted(func: object) -> Any:
        reads.append(func)
        return real(func)

    monkeypatch.setattr(scan, "source_tree", counted)

    class Base:
        def area(self) -> int:
            return 1

    # Listed under each of five subclasses, it is one function: its source is read once.
    subclasses = [type(f"Shape{i}", (Base,), {}) for i in range(5)]
    answers = {scan.scan(inspect.getattr_static(c, "area"), "area") for c in subclasses}
    assert answers == {(None, False)}
    assert reads == [Base.area]
    # The name is part of the answer: under another name it is read again, and flagged.
    assert scan.scan(Base.area, "delete_file")[0] == "name suggests deleting files"
    assert len(reads) == 2


def test_a_method_reads_only_the_texts_that_write_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from metaserver.probe import members

    read: list[str] = []

    def examples(owner: type, target: str, method: str, text: str, *rest: Any) -> list[Any]:
        read.append(text)
        return []

    class Shape:
        """>>> s = Shape()
        >>> s.scale(2)
        """

        def area(self) -> int:
            """The area.

            >>> Shape().area ()
            1
            """
            return 1

    guides = [">>> Shape().perimeter()", ">>> shape = Shape()\n>>> shape.area()"]
    monkeypatch.setattr(members, "method_examples", examples)
    monkeypatch.setattr(members, "GUIDES", guides)
    module = sys.modules[__name__]
    doc = inspect.getdoc(Shape.area) or ""
    signature = inspect.signature(Shape.area)
    members._examples(
        Shape.area, {"area"}, doc, signature, set(), "method", Shape, "Shape.area", module
    )
    # Its own docstring and the guide that calls it; not the class's, nor the other guide.
    assert read == [doc, guides[1]]


class Outer:
    """A class with a class inside: both found by their qualified names."""

    class Inner:
        def run(self) -> None:
            import os

            os.remove("x")


def test_a_class_is_read_from_its_module_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import ast

    from metaserver.probe import scan

    parses: list[str] = []
    real = ast.parse

    def counted(source: str, *args: Any, **kwargs: Any) -> Any:
        parses.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(scan, "_MODULE_TREES", {})
    monkeypatch.setattr(scan.ast, "parse", counted)
    trees = [scan.source_tree(cls) for cls in (Outer, Outer.Inner, Outer)]
    assert len(parses) == 1  # the module, once
    # The same definitions inspect.getsource finds, and what the scan reads in them.
    for cls, tree in zip((Outer, Outer.Inner), trees, strict=False):
        assert tree is not None
        shown = real(textwrap.dedent(inspect.getsource(cls))).body[0]
        assert ast.dump(tree.body[0]) == ast.dump(shown)
    assert scan.scan(Outer.Inner, "Inner")[0] == "calls os.remove"
