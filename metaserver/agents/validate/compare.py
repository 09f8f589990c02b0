"""Type-aware comparison of a tool's result with the value its documentation promises.

Results come as ``to_json`` made them: a real that a float would round is
``{"number", "text"}``, an object without a JSON form a handle whose ``repr`` is the text a
doctest prints. A documented value in repr style (wrapper ``"repr"``: ``real('3.14')``,
``Fraction(1, 3)``, ``array([1, 2])``) is compared by what it shows (``reprs.py``); one
shown as text (wrapper ``"str"``: ``str(v.bump())``, ``print(f(2))``) by the result's text,
a handle's ``text`` (its ``str``, when that is not its repr) or a plain value's ``str``.
"""

from __future__ import annotations

import ast
import datetime
import doctest
import json
import math
import re
from collections.abc import Iterator
from fractions import Fraction

from metaserver.agents.validate.reprs import (
    as_exact,
    number_shown,
    record_fields,
    record_items,
    repr_value,
)
from metaserver.agents.validate.result_reads import read_result
from metaserver.agents.validate.text_forms import numpy_printed, plain_reprs, unwrapped_arrays
from metaserver.contracts import ARRAY_READS, JSON, ResultPlace, ResultRead, Tolerance
from metaserver.runtime.handles import REPR_LIMIT

REAL_KEYS = frozenset({"number", "text"})
BLANKLINE = "<BLANKLINE>"
"""How a doctest writes an empty line of output (doctest.BLANKLINE_MARKER)."""
HANDLE_KEYS = frozenset({"handle", "type", "repr"})
"""A handle's keys; it may also carry ``text``, its ``str`` when that is not its repr, and
``fields``, the attributes its tool's documentation reads (runtime/fields.py)."""
HANDLE_TEXT = "text"
HANDLE_FIELDS = "fields"


def normalise(value: JSON) -> JSON:
    """Tuples to lists and the like: the shape a value has after a JSON round trip."""
    return json.loads(json.dumps(value, default=str))


def matches(
    result: JSON, expected: JSON, wrapper: str | None = None, tolerance: Tolerance | None = None
) -> bool:
    """Whether ``result`` equals ``expected``, floats compared to their shown precision, or
    within the ``tolerance`` the source asserted them with (a test's ``np.allclose``)."""
    if tolerance is not None and wrapper is None:
        result, expected = normalise(result), normalise(expected)
        if isinstance(result, dict) and set(result) == REAL_KEYS:
            result = result["number"]
        slack = (tolerance.rel, tolerance.abs)
        if isinstance(expected, int | float) and isinstance(result, list):
            # ``np.allclose(x, 0.0)`` broadcasts the number over every item of the array
            items = list(_leaves(result))
            return bool(items) and all(_equal(item, expected, slack) for item in items)
        return _equal(result, expected, slack)
    if wrapper == "str" and isinstance(expected, str):
        return _matches_text(result, expected)
    if _is_handle(result) and wrapper != "repr":
        # An object with no JSON form whose repr is a literal (sympy's FiniteSet prints
        # ``{1, 2, 3, 4}``): what a doctest compares is that text, so its value is what
        # the shown output's value is compared with.
        shown = _literal(str(result["repr"]))  # type: ignore[index]
        if shown is None:  # ``array([1., 2.])``: numpy's wrapper around the list it shows
            shown_repr = repr_value(str(result["repr"]))  # type: ignore[index]
            if shown_repr is not None and isinstance(shown_repr.value, list):
                shown = shown_repr.value
        if shown is not None:
            result = shown
    result, expected = normalise(result), normalise(expected)
    if wrapper == "stdout" and isinstance(result, dict) and isinstance(expected, str):
        # A script tool's README shows what it prints: compare with the run's stdout.
        return " ".join(str(result.get("stdout", "")).split()) == " ".join(expected.split())
    if wrapper == "repr" and isinstance(expected, str):
        return _matches_repr(result, expected)
    if wrapper == "sorted" and isinstance(result, list):
        result = _sorted(result)
    if wrapper == "set" and isinstance(result, list) and isinstance(expected, list):
        return _same_members(result, expected)
    if _is_handle(result) and isinstance(expected, list) and wrapper is None:
        # ``begin, end, data = iv`` then each shown: the items of a record its repr writes
        # as its constructor's call (``Interval(4, 7, (4, 7))``)
        unpacked = record_items(str(result["repr"]))  # type: ignore[index]
        if unpacked is not None:
            return _equal(unpacked, expected)
    if _is_handle(result) and (expected is None or isinstance(expected, bool | int | float | str)):
        # A constructor's object stays a handle even when it is a number (it is meant for
        # later calls): what a doctest compares is its repr with the text shown.
        return _same_text(str(result["repr"]), repr(expected))  # type: ignore[index]
    if isinstance(result, dict) and isinstance(expected, list) and len(result) == len(expected):
        # A named tuple travels as an object of its fields; the source shows it as a tuple.
        return _equal(list(result.values()), expected)
    return _equal(result, expected)


def item_of(result: JSON, part: ResultPlace | None) -> JSON:
    """The item at ``part`` of a result that is a sequence (a tuple travels as a list, a
    named tuple as an object of its fields), which the source unpacked and showed one
    item of, level by level for a nested unpacking; the result itself for no part; None
    when it has no such item."""
    if part is None:
        return result
    for place in [part] if isinstance(part, int) else part:
        if isinstance(result, dict) and not _is_handle(result) and set(result) != REAL_KEYS:
            result = list(result.values())
        if not isinstance(result, list) or not -len(result) <= place < len(result):
            return None
        result = result[place]
    return result


def _literal(text: str) -> JSON | None:
    """The JSON value of a repr that is a Python literal (a set as its sorted list), or
    None when it is not one (a call, a truncated repr, a bare number or text)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, (list, tuple, set, frozenset, dict)):
        return None  # a number or text: the repr comparison below already reads those
    try:
        return normalise(_plain(value))
    except (TypeError, ValueError):
        return None


def _plain(value: object) -> JSON:
    if isinstance(value, (set, frozenset)):
        return _sorted([_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value  # type: ignore[return-value]


def attribute_of(result: JSON, attribute: str | None) -> tuple[bool, JSON]:
    """(read, value): the attribute a source read of a result (``r.nobs``), from a handle's
    ``fields`` or a record's keys (a named tuple or dataclass travels as an object of its
    fields), an array's ``shape``, ``ndim`` and ``size`` from the rectangular list (or
    data frame) it travels as, a date's or a duration's fields from its ISO text or its
    seconds; ``(False, None)`` when the result carries no such value (a ragged list has no
    shape), ``(True, result)`` for no attribute."""
    if attribute is None:
        return True, result
    if _is_handle(result):
        fields = result.get(HANDLE_FIELDS)  # type: ignore[union-attr]
        if isinstance(fields, dict) and attribute in fields:
            return True, fields[attribute]
        return False, None
    if isinstance(result, dict) and attribute in result and set(result) != REAL_KEYS:
        return True, result[attribute]
    if attribute in ARRAY_READS:  # as ``len(x.shape)`` would read it (result_reads.py)
        read, dims = read_result(result, [ResultRead(op="shape")])
        sizes = [d for d in dims if type(d) is int] if read and isinstance(dims, list) else []
        if read and isinstance(dims, list) and len(sizes) == len(dims):
            return True, {"shape": dims, "ndim": len(dims), "size": math.prod(sizes)}[attribute]
    return _moment_attribute(result, attribute)


_MOMENT_FIELDS = ("year", "month", "day", "hour", "minute", "second", "microsecond")
_DURATION_FIELDS = ("days", "seconds", "microseconds")


def _moment_attribute(result: JSON, attribute: str) -> tuple[bool, JSON]:
    """A field of a date, time or datetime that travels as ISO text (``parse(s).year``),
    or of a timedelta that travels as its seconds (``span.days``): text and numbers have
    no such attribute, so a source that read one read it of such a value."""
    if isinstance(result, str) and attribute in _MOMENT_FIELDS:
        moment = iso_moment(result)
        if moment is not None and hasattr(moment, attribute):
            return True, getattr(moment, attribute)
    if type(result) in (int, float) and attribute in _DURATION_FIELDS:
        try:
            span = datetime.timedelta(seconds=result)
        except OverflowError:
            return False, None
        return True, getattr(span, attribute)
    return False, None


def _is_handle(result: JSON) -> bool:
    return isinstance(result, dict) and HANDLE_KEYS <= set(result) <= HANDLE_KEYS | {
        HANDLE_TEXT,
        HANDLE_FIELDS,
    }


def _matches_text(result: JSON, text: str) -> bool:
    """A result against the text ``str`` (or ``print``) showed of it: a handle's ``text``
    (else its repr, which then is its ``str``), a real's digits, a plain value's ``str``,
    or, when the text is a literal (``(1, 2)`` of a tuple that travels as a list), its
    value."""
    if _is_handle(result):
        got = str(result.get(HANDLE_TEXT, result["repr"]))  # type: ignore[union-attr]
        if got.endswith("...") and len(got) >= REPR_LIMIT:  # capped: the part it kept
            return _spaced(text).startswith(_spaced(got[:-3]))
        return _same_text(got, text)
    if isinstance(result, dict) and set(result) == REAL_KEYS:
        return _same_text(str(result["text"]), text) or _equal(result, text)
    if isinstance(result, str):
        return _same_text(result, text) or _same_moment(result, text)
    if _same_text(str(result), text):
        return True
    printed = numpy_printed(text)  # ``print(r)`` of an array: ``[[1. 2.]\n [3. 4.]]``
    if printed is not None and isinstance(result, list):
        return _same_printed(normalise(result), *printed)
    try:
        shown = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    try:
        return _equal(normalise(result), normalise(_plain(shown)))
    except (TypeError, ValueError):
        return False


def _same_printed(result: JSON, shown: list[object], slack: list[float]) -> bool:
    """An array's JSON against the numbers numpy printed of it, each within its slack (NaN
    and infinities travel as text: codecs.py)."""
    got: list[JSON] = []
    if not _same_shape(result, shown, got):
        return False
    values = list(_leaves(shown))  # type: ignore[arg-type]
    for answered, printed, allowed in zip(got, values, slack, strict=True):
        if isinstance(answered, str) and answered in ("nan", "inf", "-inf"):
            answered = float(answered)
        if isinstance(answered, bool) or not isinstance(answered, int | float):
            return False
        assert isinstance(printed, int | float)
        if math.isnan(printed) or math.isnan(answered):
            if not (math.isnan(printed) and math.isnan(answered)):
                return False
        elif math.isinf(printed) or math.isinf(answered):
            if printed != answered:
                return False
        elif abs(answered - printed) > allowed * (1 + 1e-9) + 1e-12:
            return False
    return True


def _same_shape(result: JSON, shown: object, leaves: list[JSON]) -> bool:
    """Whether ``result`` nests as ``shown`` does, its leaves collected in order."""
    if isinstance(shown, list):
        if not isinstance(result, list) or len(result) != len(shown):
            return False
        return all(_same_shape(r, s, leaves) for r, s in zip(result, shown, strict=True))
    if isinstance(result, list):
        return False
    leaves.append(result)
    return True


def _same_text(got: str, shown: str) -> bool:
    """Equal but for spacing; ``<BLANKLINE>`` in a doctest's output is its empty line."""
    return _spaced(got) == _spaced(shown)


def _spaced(text: str) -> str:
    """``text`` with its runs of spacing as one space and doctest's ``<BLANKLINE>`` as the
    empty line it stands for, an address (new in every run) and a class's module path not
    compared (``text_forms.plain_reprs``)."""
    return " ".join(plain_reprs(text.replace(BLANKLINE, "")).split())


def _same_moment(got: str, shown: str) -> bool:
    """A date, time or datetime that travels as ISO text (``2014-01-01T12:30:00+00:00``)
    against the ``str`` a page printed of it (``2014-01-01 12:30:00+00:00``)."""
    moment = iso_moment(got)
    return moment is not None and moment == iso_moment(shown.strip())


def iso_moment(text: str) -> datetime.date | datetime.time | None:
    """The datetime, date or time an ISO text is (a date as its midnight), or None."""
    for kind in (datetime.datetime, datetime.date, datetime.time):
        try:
            return kind.fromisoformat(text)
        except (ValueError, TypeError):
            continue
    return None


def _matches_repr(result: JSON, text: str) -> bool:
    """A result against a value shown in repr style."""
    shown_record = record_fields(text)
    if _is_handle(result):
        got_record = record_fields(str(result["repr"])) if shown_record is not None else None
        if shown_record is not None and got_record is not None:  # field by field
            name, fields = got_record
            return name == shown_record[0] and _equal(fields, shown_record[1])
        return _same_text(str(result["repr"]), text)  # type: ignore[index]
    if shown_record is not None:  # a record that travels as the object of its fields
        return isinstance(result, dict) and _equal(result, shown_record[1])
    shown = repr_value(text)
    if shown is None:
        return False
    if isinstance(shown.value, Fraction):
        got = _exact(result)
        if got is None:
            return False
        slack = shown.tolerance
        if isinstance(result, float):  # a float is only as close as its 53 bits allow
            slack = max(slack, abs(shown.value) * Fraction(1, 2**52))
        return abs(got - shown.value) <= slack
    return _equal(result, shown.value)


def _exact(result: JSON) -> Fraction | None:
    """A numeric result as an exact fraction: a number, a number's text, an exact real."""
    if isinstance(result, dict) and set(result) == REAL_KEYS:
        return as_exact(result["text"])
    return as_exact(result)


def _equal(result: JSON, expected: JSON, slack: tuple[float, float] | None = None) -> bool:
    """Equal, numbers to their shown precision, or within ``slack`` (relative, absolute:
    the tolerance a test asserted them with, where the digits of its literal are no
    output's: ``np.allclose(x, 1.0)`` asks for 1.0 within 1e-05, not to one decimal)."""
    if isinstance(result, dict) and set(result) == REAL_KEYS and not isinstance(expected, dict):
        # A real beyond a float's digits: its float against a number shown, else its text.
        if isinstance(expected, str):
            got, shown = as_exact(result["text"]), number_shown(expected)
            if got is None or shown is None or not isinstance(shown.value, Fraction):
                return False
            return abs(got - shown.value) <= shown.tolerance
        result = result["number"]
    if isinstance(expected, float) or isinstance(result, float):
        if isinstance(result, bool) or isinstance(expected, bool):
            return result is expected
        if isinstance(result, int | float) and isinstance(expected, int | float):
            rel, absolute = (1e-9, _shown_precision(expected)) if slack is None else slack
            return math.isclose(result, expected, rel_tol=max(rel, 1e-9), abs_tol=absolute)
        return False
    if slack is not None and isinstance(result, int | float) and isinstance(expected, int):
        if not isinstance(result, bool) and not isinstance(expected, bool):
            return math.isclose(result, expected, rel_tol=max(slack[0], 1e-9), abs_tol=slack[1])
    if isinstance(expected, list) and isinstance(result, list):
        return len(result) == len(expected) and all(
            _equal(r, e, slack) for r, e in zip(result, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(result, dict):
        return result.keys() == expected.keys() and all(
            _equal(result[k], expected[k], slack) for k in expected
        )
    if isinstance(expected, str) and isinstance(result, str):
        return _spaced(result) == _spaced(expected) or _placed_path(result, expected)
    return type(result) is type(expected) and bool(result == expected)


# A path whose folders the docs wrote as a placeholder for where the package is installed
# (``'[path/to]/pydicom/data/test_files/CT_small.dcm'``, ``/path/to/data/x.csv``,
# ``<install dir>/data/x.csv``): the part after it is the path the answer ends with.
_PLACEHOLDER_PATH = re.compile(
    r"^(?:\[[^\]/]*(?:/[^\]/]*)*\]|<[^<>/]+>|/?path/to)(/[^\s]+/[^\s]+)$"
)


def _placed_path(result: str, shown: str) -> bool:
    """Whether ``shown`` is a path with a placeholder for its leading folders (at least two
    named parts after it) that ``result``, an absolute path, ends with."""
    match = _PLACEHOLDER_PATH.match(shown.strip())
    return match is not None and result.startswith("/") and result.endswith(match.group(1))


def _leaves(value: JSON) -> Iterator[JSON]:
    """The items of nested lists, in order."""
    if isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


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


_SHOWS_SOMETHING = re.compile(r"[^\W_]")
"""A letter or a digit: what a doctest output must show besides ELLIPSIS to prove a value."""


def ellipsis_match(result: JSON, text: str) -> bool:
    """Whether the doctest output ``text``, with ``...`` standing for any text (doctest's
    ELLIPSIS), is what the result prints: a handle's repr, else the repr of the plain value
    (a list of words prints as Python prints it). doctest's own checker decides, spacing
    aside. A value whose JSON changed its repr (a tuple travels as a list) does not match:
    what it shows is then not read (validate/calls.py), never a difference. A text result
    is also taken as printed: a call that printed its answer answers with that text
    (runtime/printed.py), and a doctest shows it unquoted."""
    if not _SHOWS_SOMETHING.search(text.replace("...", "")):
        return False  # ``...`` alone (or with brackets) matches any answer: it proves nothing
    got = str(result["repr"]) if _is_handle(result) else repr(result)  # type: ignore[index]
    printed = [result] if isinstance(result, str) else []
    options = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    checker = doctest.OutputChecker()
    # numpy's ``array([[14, 14, 24], ...]...)`` shows the list the JSON form holds
    return any(
        checker.check_output(shown.strip() + "\n", answer.rstrip("\n") + "\n", options)
        for shown in dict.fromkeys((text, unwrapped_arrays(text)))
        for answer in (got, *printed)
    )
