"""variable_class: the package's class a guide variable always holds, and the parameters of
that name it types when nothing else does."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from metaserver.probe import members
from metaserver.probe.guides import variable_class

SOURCE = '''
class Graph:
    pass


class DiGraph(Graph):
    pass


class Other:
    pass


def path_graph(n):
    """A path.

    Returns
    -------
    Graph
        The path.
    """
    return Graph()


def mystery(n):
    return Graph()


def degree(G, nbunch=None):
    return 0


def weigh(G):
    """Weigh.

    Parameters
    ----------
    G : int
        A count, whatever the guides call G.
    """
    return G


def total(x, y):
    return 0
'''

GUIDE = """\
>>> import guidetyped as gt
>>> G = gt.Graph()
>>> G = gt.DiGraph()
>>> G = gt.path_graph(3)
>>> G = gt.mystery(3)
>>> G.name = "path"
>>> gt.degree(G)
0
>>> x = 5
>>> x = gt.Graph()
>>> y = gt.Graph()
>>> y = gt.Other()
>>> x[0] = 1
>>> for node in [1, 2]:
...     pass
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    (tmp_path / "guidetyped.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    members.set_guides([GUIDE])
    try:
        yield importlib.import_module("guidetyped")
    finally:
        members.set_guides([])
        sys.path.remove(str(tmp_path))
        sys.modules.pop("guidetyped", None)


def test_a_name_the_guides_bind_to_one_class_only_takes_it(module: ModuleType) -> None:
    # Graph, DiGraph (a Graph) and a factory documented to return a Graph: the most general
    assert variable_class("G", "guidetyped") is module.Graph
    assert variable_class("x", "guidetyped") is None  # also bound to a literal
    assert variable_class("y", "guidetyped") is None  # two unrelated classes
    assert variable_class("node", "guidetyped") is None  # a loop variable


def test_an_untyped_required_parameter_takes_the_guides_class(module: ModuleType) -> None:
    def codecs(name: str) -> dict[str, str | None]:
        item, reason, _ = members.describe_callable(getattr(module, name), name, module, True)
        assert item is not None, reason
        return {p["name"]: p["codec"] for p in item["parameters"]}

    assert (codecs("degree")["G"] or "").endswith("guidetyped:Graph")
    # the docstring's own type wins, even one naming no class
    assert codecs("weigh")["G"] is None
    assert codecs("total") == {"x": None, "y": None}
