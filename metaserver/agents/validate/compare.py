"""Type-aware comparison of a tool's result with the value its documentation promises."""

from __future__ import annotations

import json
import math

from metaserver.contracts import JSON


def normalise(value: JSON) -> JSON:
    """Tuples to lists and the like: the shape a value has after a JSON round trip."""
    return json.loads(json.dumps(value, default=str))


def matches(result: JSON, expected: JSON, wrapper: str | None = None) -> bool:
    """Whether ``result`` equals ``expected``, floats compared to their shown precision."""
    result, expected = normalise(result), normalise(expected)
    if wrapper == "stdout" and isinstance(result, dict) and isinstance(expected, str):
        # A script tool's README shows what it prints: compare with the run's stdout.
        return " ".join(str(result.get("stdout", "")).split()) == " ".join(expected.split())
    if wrapper == "sorted" and isinstance(result, list):
        result = _sorted(result)
    if wrapper == "set" and isinstance(result, list) and isinstance(expected, list):
        return _same_members(result, expected)
    if isinstance(result, dict) and isinstance(expected, list) and len(result) == len(expected):
        # A named tuple travels as an object of its fields; the source shows it as a tuple.
        return _equal(list(result.values()), expected)
    return _equal(result, expected)


def _equal(result: JSON, expected: JSON) -> bool:
    if isinstance(expected, float) or isinstance(result, float):
        if isinstance(result, bool) or isinstance(expected, bool):
            return result is expected
        if isinstance(result, int | float) and isinstance(expected, int | float):
            return math.isclose(result, expected, rel_tol=1e-9, abs_tol=_shown_precision(expected))
        return False
    if isinstance(expected, list) and isinstance(result, list):
        return len(result) == len(expected) and all(map(_equal, result, expected))
    if isinstance(expected, dict) and isinstance(result, dict):
        return result.keys() == expected.keys() and all(
            _equal(result[k], expected[k]) for k in expected
        )
    if isinstance(expected, str) and isinstance(result, str):
        return " ".join(result.split()) == " ".join(expected.split())
    return type(result) is type(expected) and bool(result == expected)


def _shown_precision(value: float | int) -> float:
    """Half a unit in the last digit a doctest printed (0.333 -> 0.0005)."""
    text = repr(value)
    if "e" in text or "." not in text:
        return 0.0
    decimals = len(text.split(".", 1)[1])
    return 0.5 * 10.0 ** (-decimals) if decimals < 15 else 0.0


def _sorted(values: list[JSON]) -> list[JSON]:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: json.dumps(v, sort_keys=True))


def _same_members(result: list[JSON], expected: list[JSON]) -> bool:
    key = lambda v: json.dumps(v, sort_keys=True)  # noqa: E731
    return sorted(map(key, result)) == sorted(map(key, expected))
