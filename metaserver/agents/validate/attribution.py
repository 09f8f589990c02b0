"""Whose fault a disagreeing documented value is (ARCHITECTURE.md, "Honest attribution").

The repository is blamed (``repo_internal_bug``) only when its own example was replayed
exactly as written: the line whose output the docstring shows, unchanged, and for a method
the receiver that line's own session built, with its setup calls. An example we assembled
(arguments found by name elsewhere, a receiver from another example, a guessed value, our
reading of a repr) that disagrees is our mistake (``api_inference_error``).
"""

from __future__ import annotations

from metaserver.contracts import Example, ToolSpec


def exact_replay(spec: ToolSpec, example: Example) -> list[str] | None:
    """The lines replayed (session, then the documented line) when ``example`` is the
    repository's own example as written; None when it is anything we assembled."""
    if not example.has_expected or example.line is None or example.origin != "doctest":
        return None
    if example.wrapper == "repr":
        return None  # the expected value is our reading of what it printed
    if spec.kind == "method" and not example.session:
        return None  # a receiver that was not the example's own
    # An argument built inline (``contains(line, Point(0, 0))``) is a step of its own line.
    lines = list(dict.fromkeys(step.line for step in example.session))
    if not lines or lines[-1] != example.line:  # ``Grid("A1").code()`` is both
        lines.append(example.line)
    return lines
