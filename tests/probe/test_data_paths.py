"""A path a session joins from a name it imported from the package (probe/data_paths.py):
``os.path.join(data_path, "a.csv")`` is the literal path, so the reader's call is an example."""

from __future__ import annotations

import ast
import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from probe_modules import guided_module

from metaserver.probe import members
from metaserver.probe.data_paths import imported_names, joined_path
from metaserver.probe.members import describe_callable

SOURCE = """
data_path = "/opt/datafx/data"


def load(filename):
    return "loaded " + filename


def size_of(filename):
    '''How long its name is.

    >>> import os
    >>> from datafx import data_path
    >>> size_of(os.path.join(data_path, "b.csv"))
    22
    '''
    return len(filename)
"""

GUIDE = """
>>> import os
>>> from datafx import data_path
>>> example = os.path.join(data_path, "a.csv")
>>> load(example)
'loaded /opt/datafx/data/a.csv'
"""

PAGE = """
>>> import os
>>> import numpy as np
>>> import datafx as dfx
>>> from datafx.testing import data_path as tests_path
>>> first = os.path.join(tests_path, "c.csv")
>>> table = dfx.load(first)
>>> other = np.load("x.npy")
"""

TESTING = 'data_path = "/opt/datafx/tests/data"\n'


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    with guided_module(tmp_path, "datafx", SOURCE, [GUIDE]) as loaded:
        yield loaded


def test_a_joined_package_path_is_the_readers_literal_argument(module: ModuleType) -> None:
    candidate, _, _ = describe_callable(module.load, "load", module, True)
    assert candidate is not None
    [example] = [e for e in candidate["examples"] if e["has_expected"]]
    assert example["arguments"] == {"filename": "/opt/datafx/data/a.csv"}
    assert example["expected"] == "loaded /opt/datafx/data/a.csv"


def test_a_docstrings_joined_package_path_is_its_literal_argument(module: ModuleType) -> None:
    candidate, _, _ = describe_callable(module.size_of, "size_of", module, True)
    assert candidate is not None
    [example] = [e for e in candidate["examples"] if e["has_expected"]]
    assert (example["arguments"], example["expected"]) == (
        {"filename": "/opt/datafx/data/b.csv"},
        22,
    )


def _call(text: str) -> ast.expr:
    statement = ast.parse(text).body[0]
    assert isinstance(statement, ast.Expr)
    return statement.value


def test_only_the_packages_imported_text_and_literals_are_joined() -> None:
    namespace = {"os": os, "data_path": "/d", "folder": Path("/f"), "other": "/o", "number": 3}
    imported = {"data_path", "folder", "number"}
    assert joined_path(_call("os.path.join(data_path, 'x', 'y.csv')"), namespace, imported) == (
        "/d/x/y.csv"
    )
    # ``files("pkg") / "tests" / "data"``: a path object, joined as its text
    assert joined_path(_call("os.path.join(folder, 'y.csv')"), namespace, imported) == "/f/y.csv"
    for refused in [
        "os.path.join(other, 'y.csv')",  # not bound by the session's import of the package
        "os.path.join(number, 'y.csv')",  # not text
        "os.path.join(data_path, name)",
        "os.path.abspath(data_path)",
        "os.path.join(*parts)",
    ]:
        assert joined_path(_call(refused), namespace, imported) is None, refused


def test_names_of_the_packages_own_imports() -> None:
    [own, other, relative] = ast.parse(
        "from datafx.testing import data_path as where, DATA\n"
        "from numpy import pi\n"
        "from . import x\n"
    ).body
    assert imported_names(own, "datafx") == {"where", "DATA"}
    assert imported_names(other, "datafx") == set()
    assert imported_names(relative, "datafx") == set()


def test_a_guide_pages_assigned_call_is_an_example_and_another_librarys_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pagefx"
    package.mkdir()
    (package / "testing.py").write_text(TESTING.replace("datafx", "pagefx"))
    (package / "__init__.py").write_text("def load(filename):\n    return 'loaded ' + filename\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    members.set_guides([PAGE.replace("datafx", "pagefx")])
    try:
        module = importlib.import_module("pagefx")
        importlib.import_module("pagefx.testing")  # as the probe imports what guides import
        candidate, _, _ = describe_callable(module.load, "load", module, True)
    finally:
        members.set_guides([])
        sys.modules.pop("pagefx.testing", None)
        sys.modules.pop("pagefx", None)
    assert candidate is not None
    arguments = [e["arguments"] for e in candidate["examples"]]
    # the call the page assigns is an example; numpy's ``load`` is not this load
    assert arguments == [{"filename": "/opt/pagefx/tests/data/c.csv"}]
