"""Doctest-style calls of a function found anywhere in a repository's text.

The probe reads examples from a function's own docstring. When a tool fails with those (or
with synthesised arguments), the repair step looks wider: module docstrings, README and docs
often show the call a function's own docstring lacks. Read statically; nothing is imported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from metaserver.contracts import JSON, Example, Parameter
from metaserver.probe.doctest_lines import WRAPPERS
from metaserver.probe.reprs import repr_shaped
from metaserver.probe.text import shown_as_text

TEXT_SUFFIXES = (".py", ".md", ".rst", ".txt")
MAX_FILES = 2000
MAX_FILE_BYTES = 1_000_000
_ASSIGNED = re.compile(r"\s*([A-Za-z_]\w*)\s*=[^=]")


def find_examples(root: Path, name: str, parameters: list[Parameter]) -> list[Example]:
    """Literal calls of ``name`` shown as ``>>>`` lines under ``root``, bound to parameters."""
    found: list[Example] = []
    for source, want, bound in _sessions(root):
        example = _example(source, want, name, parameters, bound)
        if example is not None and example not in found:
            found.append(example)
    found.sort(key=lambda e: not e.has_expected)
    return found


def _sessions(root: Path) -> Iterator[tuple[str, str, frozenset[str]]]:
    """(source, expected output, names bound by the file's earlier ``>>>`` lines) for each
    ``>>>`` statement in the repository's text files."""
    files = 0
    for path in sorted(root.rglob("*")):
        if files >= MAX_FILES:
            return
        if path.suffix not in TEXT_SUFFIXES or not path.is_file() or path.is_symlink():
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            continue
        files += 1
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
        bound: frozenset[str] = frozenset()
        for index, line in enumerate(lines):
            if not line.startswith(">>> "):
                continue
            source, cursor = line[4:], index + 1
            while cursor < len(lines) and lines[cursor].startswith("... "):
                source += "\n" + lines[cursor][4:]
                cursor += 1
            want: list[str] = []
            while cursor < len(lines) and lines[cursor] and not lines[cursor].startswith(">>>"):
                text = lines[cursor]
                closing = text.endswith(('"""', "'''"))
                text = text[:-3] if closing else text
                if text:
                    want.append(text)
                if closing:  # the docstring ends here, and so does the expected output
                    break
                cursor += 1
            yield source, "\n".join(want), bound
            assigned = _ASSIGNED.match(source)
            if assigned:
                bound |= {assigned.group(1)}


def _example(
    source: str, want: str, name: str, parameters: list[Parameter], bound: frozenset[str]
) -> Example | None:
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    node, wrapper, want = shown_as_text(node, want)  # ``print(f(2))``: the text of f(2)
    if (
        wrapper is None
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and node.func.id != name
    ):
        wrapper, node = node.func.id, node.args[0]
    if not isinstance(node, ast.Call):
        return None
    called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
    if called != name:
        return None
    receiver = getattr(node.func, "value", None)
    if isinstance(receiver, ast.Name) and receiver.id in bound:
        return None  # ``acc.total()`` after ``acc = Tally()``: a method of acc, not ``total``
    arguments = _bind(node, parameters)
    if arguments is None:
        return None
    expected, has_expected = _expected(want, wrapper)
    if not has_expected and wrapper is None and repr_shaped(want):
        # A number or array type printed as its constructor call: validate/reprs.py reads it.
        expected, has_expected, wrapper = want, True, "repr"
    return Example(
        arguments=arguments,
        expected=expected,
        has_expected=has_expected,
        wrapper="set" if wrapper == "frozenset" else wrapper,
        origin="doctest",
    )


def _bind(call: ast.Call, parameters: list[Parameter]) -> dict[str, JSON] | None:
    positional = [p.name for p in parameters if p.kind != "keyword_only"]
    known = {p.name for p in parameters}
    try:
        values = [ast.literal_eval(a) for a in call.args]
        keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if None in keywords or len(values) > len(positional):
        return None
    arguments: dict[str, JSON] = dict(zip(positional, values, strict=False))
    for key, value in keywords.items():
        if key is None or key not in known or key in arguments:
            return None
        arguments[key] = value
    if any(p.required and p.name not in arguments for p in parameters):
        return None
    converted = _json_or_none(arguments)
    return converted if isinstance(converted, dict) else None


def _expected(want: str, wrapper: str | None) -> tuple[JSON, bool]:
    if not want or want.startswith("Traceback"):
        return None, False
    try:
        value = ast.literal_eval(want)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None, False
    if wrapper in ("set", "frozenset") and isinstance(value, set | frozenset):
        try:
            value = sorted(value)
        except TypeError:
            return None, False
    converted = _json_or_none(value)
    return (converted, True) if converted is not None or value is None else (None, False)


def _json_or_none(value: object) -> JSON:
    """``value`` as plain JSON data (tuples become lists), or None when it is not data."""
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if value == value else None
    if isinstance(value, list | tuple):
        items = [_json_or_none(v) for v in value]
        return (
            None
            if any(i is None and v is not None for i, v in zip(items, value, strict=True))
            else items
        )
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        converted = {k: _json_or_none(v) for k, v in value.items()}
        return (
            None if any(converted[k] is None and value[k] is not None for k in value) else converted
        )
    return None
