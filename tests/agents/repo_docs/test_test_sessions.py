"""The test suite's tests as doctest sessions: what the probe reads a method's examples in."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.agents.repo_docs import test_sessions
from metaserver.agents.repo_docs.test_sessions import MAX_STATEMENTS, suite_sessions

TESTS = """\
import pytest
from numpy.testing import assert_allclose
from tally import Tally


def test_count():
    \"\"\"Counts what was added.\"\"\"
    t = Tally()
    t.add("a")
    t.add("a")
    assert t.count("a") == 2
    with pytest.raises(TypeError):
        t.count()
    t.add("never shown")


@pytest.mark.parametrize("start, expected", [(0, 2), (5, 7)])
def test_total(start, expected):
    t = Tally(start)
    t.add("x")
    t.add("y")
    n = t.total()
    assert n == expected


class TestRatios:
    def setup_method(self):
        \"\"\"A tally to test.\"\"\"
        self.t = Tally()

    def test_ratio(self):
        assert_allclose(self.t.ratio(1, 3), 0.3333333333)
        assert_allclose(self.t.ratio(1, 3), 0.3, rtol=0.1)


def test_nothing_shown():
    t = Tally()
    assert t.total() > -1
    assert t.labels() == {"a", "b"}


def helper():
    assert Tally().total() == 0
"""


def test_assertions_of_values_become_shown_outputs(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_tally.py").write_text(TESTS)
    (tmp_path / "tally.py").write_text("def test_in_package():\n    assert f(1) == 1\n")
    texts = suite_sessions(tmp_path)
    imports = ">>> import pytest\n>>> from numpy.testing import assert_allclose\n"
    imports += ">>> from tally import Tally\n"
    count, first, second, ratio = texts  # a test that shows no value is no session
    assert count == imports + (
        ">>> t = Tally()\n\n>>> t.add('a')\n\n>>> t.add('a')\n\n>>> t.count('a')\n2"
    )  # the line that raises is left out, and what follows the last value shown
    assert first.endswith(
        ">>> t = Tally(0)\n\n>>> t.add('x')\n\n>>> t.add('y')\n\n>>> n = t.total()\n\n>>> n\n2"
    )
    assert second.endswith(">>> n\n7")  # each parametrised row is a session
    # a closeness assertion at validation's tolerance shows its value; a looser one does not;
    # a test class's setup lines come first, its ``self.t`` a name
    assert ratio.endswith(">>> t = Tally()\n\n>>> t.ratio(1, 3)\n0.3333333333")


def test_a_long_test_is_cut_at_its_statement_budget(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    body = "".join(f"    t.add({i})\n" for i in range(MAX_STATEMENTS))
    (tmp_path / "tests" / "test_long.py").write_text(
        f"def test_long():\n    t = Tally()\n{body}    assert t.total() == {MAX_STATEMENTS}\n"
    )
    assert suite_sessions(tmp_path) == []


def test_a_line_that_cannot_be_written_back_leaves_its_test_out(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_odd.py").write_text(
        "def test_odd():\n"
        "    sep = '\\\\'\n"
        "    t = Tally()\n"
        "    label = f'{t.join(sep)}'\n"
        "    assert t.total() == 0\n\n\n"
        "def test_plain():\n"
        "    t = Tally()\n"
        "    assert t.total() == 0\n"
    )
    # ``sep`` inlined: 3.11's ast.unparse refuses a backslash in an f-string's expression
    (plain,) = suite_sessions(tmp_path)
    assert plain.endswith(">>> t = Tally()\n\n>>> t.total()\n0")


HELPED = """\
import numpy as np
import pytest
from tally import Tally


class TestBuilt:
    def new_tally(self, start, label):
        \"\"\"A tally set up as the tests want it.\"\"\"
        t = Tally(start)
        t.label = label
        t.add(label)
        return t

    def other(self, n=2):
        return Tally(n)

    @pytest.mark.parametrize("first", [3])
    def test_total(self, first):
        t = self.new_tally(first, label="a")
        assert t.total() == 4

    def test_defaults_are_not_followed(self):
        t = self.other()
        assert t.total() == 2
"""


def test_a_class_helper_that_builds_the_receiver_is_read_as_its_lines(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_built.py").write_text(HELPED)
    total, defaults = suite_sessions(tmp_path)
    # the helper's parameters bound to the call's arguments, then its lines
    assert total.endswith(
        ">>> first = 3\n\n>>> start = first\n\n>>> label = 'a'\n\n>>> t = Tally(3)\n\n"
        ">>> t.label = label\n\n>>> t.add('a')\n\n>>> t.total()\n4"
    )
    # a helper with defaults is not followed: its call stays a line no reader replays
    assert defaults.endswith(">>> t = other()\n\n>>> t.total()\n2")


def test_a_test_class_attribute_naming_a_class_is_that_class(tmp_path: Path) -> None:
    # unittest-style suites name the class under test once in the class body
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_header.py").write_text(
        "from pkg import Header, Other\n\n"
        "class TestHeader:\n"
        "    header_class = Header\n"
        "    other_class = Header\n"
        "    other_class = Other\n"
        "    def test_units(self):\n"
        "        hdr = self.header_class()\n"
        "        assert hdr.units() == ('mm', 'sec')\n"
        "        assert self.other_class().units() == 1\n"
    )
    (text,) = suite_sessions(tmp_path)
    assert ">>> hdr = Header()\n\n>>> hdr.units()\n('mm', 'sec')" in text
    assert ">>> other_class().units()" in text  # bound twice: no alias of anything


def test_the_files_naming_what_the_guides_call_come_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a_internal.py").write_text(
        "def test_cache():\n    assert clear_cache() == 0\n"
    )
    (tmp_path / "tests" / "test_z_image.py").write_text(
        "def test_load():\n    img = load('a.nii')\n    assert img.get_fdata() == [1]\n"
    )
    guides = [">>> img = nib.load('example4d.nii.gz')\n>>> data = img.get_fdata()\n"]
    first, second = suite_sessions(tmp_path, guides)
    assert "get_fdata" in first and "clear_cache" in second
    assert "clear_cache" in suite_sessions(tmp_path)[0]  # no guides: file order
    # a budget for one file's sessions goes to the one the guides name
    monkeypatch.setattr(test_sessions, "MAX_TEXT", len(first) + 1)
    assert suite_sessions(tmp_path, guides) == [first]


def test_a_subclass_naming_another_class_under_test_reads_its_bases_tests(
    tmp_path: Path,
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_header.py").write_text(
        "from pkg import PairHeader, Header\n\n"
        "class TestPairHeader:\n"
        "    header_class = PairHeader\n"
        "    def test_units(self):\n"
        "        hdr = self.header_class()\n"
        "        assert hdr.units() == ('mm', 'sec')\n\n"
        "class TestHeader(TestPairHeader):\n"
        "    header_class = Header\n"
        "    def test_more(self):\n"
        "        assert self.header_class().more() == 1\n\n"
        "class TestSameHeader(TestPairHeader):\n"  # nothing new: no second session
        "    def test_other(self):\n"
        "        assert self.header_class().other() == 2\n"
    )
    texts = suite_sessions(tmp_path)
    units = [t for t in texts if "units()" in t]
    assert len(units) == 2
    assert ">>> hdr = PairHeader()" in units[0] and ">>> hdr = Header()" in units[1]
    assert any(">>> PairHeader().other()" in t for t in texts)
    assert len(texts) == 4
