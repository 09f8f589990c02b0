"""A date, time or duration a test or a doc compares a result with, written as its call.

``assert parse("Aug 29, 1924") == datetime(1924, 8, 29)`` and a doctest's
``datetime.datetime(2003, 9, 25, 10, 49)`` show a value no literal writes. The runtime
answers such a value as its ISO text (a duration as its seconds: ``runtime/codecs.py``), so
the shown call is that text: ``shown_moment`` writes it as doctest prints it, with the
callee named as the test's imports bind it (``from datetime import datetime``; with no
import, as a repr names it: ``datetime.datetime``), for the probe's ``moment_value`` (one
reading for the host and the probe). Static only: the stdlib class is built from literals,
no code of the repository runs.
"""

from __future__ import annotations

import ast
import copy

from metaserver.contracts import JSON
from metaserver.probe.stdlib_values import moment_value

__all__ = ["datetime_names", "moment_json", "shown_moment"]

_CLASSES = {"datetime", "date", "time", "timedelta", "timezone"}


def datetime_names(tree: ast.AST) -> dict[str, str]:
    """What each name the code binds by importing from ``datetime`` means (``dt`` ->
    ``datetime`` for ``import datetime as dt``, ``datetime`` -> ``datetime.datetime`` for
    ``from datetime import datetime``); ``datetime`` is the module where nothing says."""
    names = {"datetime": "datetime"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(
                {a.asname: "datetime" for a in node.names if a.name == "datetime" and a.asname}
            )
        elif isinstance(node, ast.ImportFrom) and node.module == "datetime" and not node.level:
            for alias in node.names:
                if alias.name in _CLASSES:
                    names[alias.asname or alias.name] = f"datetime.{alias.name}"
    return names


def shown_moment(node: ast.expr, names: dict[str, str]) -> str | None:
    """The repr of the date, time, datetime or timedelta ``node`` builds from literals,
    its classes named as ``names`` (``datetime_names``) bind them; None for anything else."""
    qualified = _Qualified(names).visit(copy.deepcopy(node))
    try:
        text = ast.unparse(qualified)
    except (ValueError, RecursionError):
        return None
    return text if moment_value(text) is not None else None


def moment_json(node: ast.expr, names: dict[str, str]) -> JSON:
    """The JSON the runtime answers the value ``shown_moment`` reads with; None for none."""
    text = shown_moment(node, names)
    value: JSON = moment_value(text) if text is not None else None
    return value


class _Qualified(ast.NodeTransformer):
    """Each name bound to the ``datetime`` module or one of its classes, as its dotted path."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        meaning = self.names.get(node.id)
        if meaning is None:
            return node
        parts = meaning.split(".")
        dotted: ast.expr = ast.Name(parts[0], ast.Load())
        for part in parts[1:]:
            dotted = ast.Attribute(dotted, part, ast.Load())
        return ast.copy_location(dotted, node)
