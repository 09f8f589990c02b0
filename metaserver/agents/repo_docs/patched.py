"""Code a test runs in a world it patched: its asserted values are not the plain call's.

dateutil asserts ``utils.today() == datetime(2014, 12, 15, 0, 0, 0)`` under
``@freeze_time(datetime(2014, 12, 15, 1, 21, 33))``: the value holds only while the clock
is frozen, and a tool answers today's date. A test runs in a patched world under a
decorator or a ``with`` block of the testing libraries' patchers (``unittest.mock.patch``
and its ``.object``/``.dict`` forms, ``freezegun.freeze_time``), or when pytest hands it a
patcher (``monkeypatch``, ``mocker``). Its calls still show how the API is called; only
its values are not read (``usage._assertions``, ``test_sessions``). Static only (``ast``).
"""

from __future__ import annotations

import ast

__all__ = ["patched_nodes"]

PATCHERS = {"patch", "freeze_time"}
"""The testing libraries' patchers, by the name a decorator or a ``with`` item calls."""
PATCHING_FIXTURES = {"monkeypatch", "mocker"}
"""The fixtures through which pytest and pytest-mock hand a test a patcher."""


def patched_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes a test runs in a patched world: a function's under a patching
    decorator or taking a patching fixture, and a patching ``with`` block's."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            given = {a.arg for a in [*node.args.posonlyargs, *node.args.args]}
            if given & PATCHING_FIXTURES or any(_patcher(d) for d in node.decorator_list):
                found.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.With | ast.AsyncWith):
            if any(_patcher(item.context_expr) for item in node.items):
                found.update(id(n) for s in node.body for n in ast.walk(s))
    return found


def _patcher(node: ast.expr) -> bool:
    """``patch(...)``, ``mock.patch.object(...)``, ``@freeze_time("2014-12-15")``..."""
    if isinstance(node, ast.Call):
        node = node.func
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return bool(PATCHERS & set(names))
