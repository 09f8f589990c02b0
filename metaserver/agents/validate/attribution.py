"""Whose fault a disagreeing documented value is (ARCHITECTURE.md, "Honest attribution").

The repository is blamed (``repo_internal_bug``) only when its own example was replayed
exactly as written: the line whose output the docstring shows, unchanged, and for a method
the receiver that line's own session built, with its setup calls (and an argument's setup
calls, ``G.add_edge("A", "B")``, every one replayed). An example we assembled
(arguments found by name elsewhere, a receiver from another example, a guessed value, our
reading of a repr) that disagrees is our mistake (``api_inference_error``). So is a text
(``str(...)``, ``print(...)``) compared with a result that came back as JSON: our codecs
made it so (a date as ISO text, an enum as its value), and its ``str`` is no longer the
object's own; only a handle carries the object's own text. So is an
object a step built and handed on as data (a graph its codec made a list of nodes): the
call received our copy of it, not the object the example passed.
"""

from __future__ import annotations

from collections.abc import Mapping

from metaserver.contracts import JSON, Example, ToolSpec


def exact_replay(
    spec: ToolSpec, example: Example, arguments: Mapping[str, JSON] | None = None
) -> list[str] | None:
    """The lines replayed (session, then the documented line) when ``example`` is the
    repository's own example as written; None when it is anything we assembled.

    ``arguments``: what the call received, when its session built some of them; each built
    object must have reached it as itself (a handle), not as data made of it."""
    if not example.has_expected or example.line is None or example.origin != "doctest":
        return None
    if example.wrapper == "repr":
        return None  # the expected value is our reading of what it printed
    if spec.kind == "method" and not example.session:
        return None  # a receiver that was not the example's own
    if arguments is not None and not all(
        _as_itself(arguments.get(step.into), step.item is not None)
        for step in example.session
        if step.into is not None
    ):
        return None
    # An argument built inline (``contains(line, Point(0, 0))``) is a step of its own line.
    lines = list(dict.fromkeys(step.line for step in example.session))
    if not lines or lines[-1] != example.line:  # ``Grid("A1").code()`` is both
        lines.append(example.line)
    return lines


def text_of_itself(example: Example, result: JSON) -> bool:
    """Whether a result compared by its text (wrapper ``"str"``) was the object's own text:
    a handle's (its ``str`` on the server), or a value whose JSON is itself (None, a bool)."""
    if example.wrapper != "str":
        return True
    if isinstance(result, dict):
        return isinstance(result.get("handle"), str) and "repr" in result
    return result is None or isinstance(result, bool)


def _as_itself(value: JSON | None, items: bool) -> bool:
    """Whether a built argument is the object itself: a handle, or a list of handles for
    a list or ``*args`` built item by item."""
    values = value if items and isinstance(value, list) else [value]
    return all(isinstance(v, dict) and isinstance(v.get("handle"), str) for v in values)
