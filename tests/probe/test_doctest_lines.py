"""A doctest's lines read: a statement left open continued, import lines bound
(probe/doctest_lines.py)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from metaserver.probe.doctest_lines import parsed_examples


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


ANNOTATED = '''
class Tally:
    """A running total.

    >>> t: "Tally" = Tally()
    >>> t.add(2)
    >>> t.total()
    2
    """

    def __init__(self):
        self.sum = 0

    def add(self, n):
        self.sum += n

    def total(self):
        return self.sum


def double(n):
    """Twice.

    >>> x: int = double(4)
    >>> x
    8
    """
    return 2 * n
'''


def test_an_annotated_assignment_binds_its_name_as_a_plain_one(tmp_path: Path) -> None:
    from probe_modules import guided_module

    from metaserver.probe.members import describe_callable, describe_class

    with guided_module(tmp_path, "tallyfx", ANNOTATED, []) as module:
        described = describe_class(module.Tally, "Tally", module, True, "tallyfx")
        function, _, _ = describe_callable(module.double, "double", module, True)
    found = {t: c for c, _, t in described if c is not None}
    (total,) = found["tallyfx:Tally.total"]["examples"]
    assert (total["expected"], total["has_expected"]) == (2, True)
    assert [s["line"] for s in total["session"]] == ['t: "Tally" = Tally()', "t.add(2)"]
    assert function is not None
    (double,) = function["examples"]
    assert (double["arguments"], double["expected"]) == ({"n": 4}, 8)
