"""A doctest session read once into statements (probe/session_reading.py)."""

from __future__ import annotations

import ast
import doctest
from typing import Any

import pytest

from metaserver.probe.session_reading import line_statements


def ast_text(node: Any) -> str:
    return ast.unparse(node)


def test_a_text_is_read_once_and_its_imports_bind_in_every_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from metaserver.probe import session_reading

    statements: list[str] = []
    real = session_reading._statement_once

    def counted(source: str) -> Any:
        statements.append(source)
        return real(source)

    monkeypatch.setattr(session_reading, "_statement_once", counted)
    doc = ">>> from collections import OrderedDict as OD\n>>> data = [1, 2]\n>>> total(data)\n3\n"
    readers = [{}, {}]
    lines = [list(session_reading.session_statements(doc, names)) for names in readers]
    # One reading (three lines parsed once), the same statements for both readers, the
    # literal put back into the call, and the import bound in each reader's namespace.
    assert len(statements) == 3
    assert [ex.source for ex, _ in lines[0]] == [ex.source for ex, _ in lines[1]]
    assert ast_text(lines[1][-1][1]) == "total([1, 2])"
    assert all(names["OD"].__name__ == "OrderedDict" for names in readers)


def test_a_method_reads_a_text_up_to_its_last_call() -> None:
    """The lines after a method's last call cannot be its example (a long guide is read for
    every method of every class it names); a method bound to a name that a later line calls
    has no attribute there, so that text is read whole."""
    from metaserver.probe import session_reading

    doc = (
        ">>> g = Grid('A1')\n>>> g.code()\n4328\n>>> g.name\n'A1'\n>>> h = Grid('B2')\n"
        ">>> size = h.area\n>>> size()\n4\n>>> h.name\n'B2'\n"
    )

    def read(method: str | None) -> list[str]:
        return [ex.source.strip() for ex, _ in session_reading.session_statements(doc, {}, method)]

    everything = read(None)
    assert len(everything) == 7
    assert read("code") == everything[:3]  # and g.name: what a result holds may be shown
    assert read("name") == everything  # h.name, the last line
    assert read("area") == everything  # bound to size, called later: no attribute there
    assert read("never") == []


def test_a_line_of_several_statements_is_each_of_them() -> None:
    def read(source: str, want: str = "") -> list[tuple[str, str]]:
        pairs = line_statements(doctest.Example(source, want))
        return [(example.source.strip(), example.want) for example, _ in pairs]

    # setup calls, each a step of its own, the repository's own text
    assert read("rs.push(1); rs.push(2); rs.push(6)\n") == [
        ("rs.push(1)", ""),
        ("rs.push(2)", ""),
        ("rs.push(6)", ""),
    ]
    # the output is the last statement's when the ones before it print nothing
    assert read("x = 2; x.bit_length()\n", "2\n") == [("x = 2", ""), ("x.bit_length()", "2\n")]
    # an earlier expression prints too: the output is no one statement's
    assert read("a.f(); a.g()\n", "1\n2\n") == [("a.f()", ""), ("a.g()", "")]
    assert read("rs.mean()\n", "3.0\n") == [("rs.mean()", "3.0\n")]
    assert read("not python (\n") == []
