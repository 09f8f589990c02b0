"""to_json / from_json / cap_result: every codec, limits, and handle round trips."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import io
import itertools
import json
import math
from collections import OrderedDict, deque, namedtuple
from decimal import Decimal
from fractions import Fraction
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaserver.runtime.codecs import cap_result, from_json, json_size_ok, to_json
from metaserver.runtime.handles import HandleTable

# -- strategies ---------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(), kids, max_size=5),
    max_leaves=30,
)
hashable_extras = (
    st.fractions()
    | st.decimals(allow_nan=False)  # a signalling NaN cannot be hashed
    | st.datetimes()
    | st.dates()
    | st.times()
    | st.timedeltas()
    | st.complex_numbers()
    | st.binary(max_size=20)
    | st.floats()
)
hashables = st.recursive(
    json_scalars | hashable_extras,
    lambda kids: st.tuples(kids, kids) | st.frozensets(kids, max_size=4),
    max_leaves=10,
)
python_values = st.recursive(
    json_scalars | hashable_extras | st.decimals(),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.tuples(kids, kids)
        | st.sets(hashables, max_size=4)
        | st.frozensets(hashables, max_size=4)
        | st.dictionaries(hashables, kids, max_size=4)
        | st.builds(iter, st.lists(kids, max_size=4))
    ),
    max_leaves=30,
)


def dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


# -- properties ---------------------------------------------------------------------------


@given(json_values)
def test_json_values_round_trip_unchanged(value: Any) -> None:
    table = HandleTable()
    assert to_json(value, table) == value
    assert from_json(value, table) == value
    assert len(table) == 0


@given(python_values)
def test_output_is_always_strict_json(value: Any) -> None:
    table = HandleTable()
    out = to_json(value, table)
    assert json.loads(dumps(out)) == out
    assert len(table) == 0  # every generated type has a codec


@given(st.lists(st.builds(object), min_size=1, max_size=5))
def test_handles_round_trip_to_identical_objects(objects: list[object]) -> None:
    table = HandleTable()
    wire = json.loads(dumps(to_json({"items": objects, "first": objects[0]}, table)))
    back = from_json(wire, table)
    assert all(a is b for a, b in zip(back["items"], objects, strict=True))
    assert back["first"] is objects[0]


def test_a_handle_with_its_text_round_trips_as_it_came() -> None:
    class Version:
        def __str__(self) -> str:
            return "1.4"

    table = HandleTable()
    version = Version()
    wire = json.loads(dumps(to_json([version], table)))
    assert wire[0]["text"] == "1.4"
    assert from_json(wire, table)[0] is version  # the descriptor, ``text`` and all
    assert from_json({**wire[0], "other": 1}, table) != version  # not a handle: a dict


# -- scalars ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (1.5, 1.5),
        (b"\x00\xff", {"base64": "AP8="}),
        (bytearray(b"hi"), {"base64": "aGk="}),
        (Decimal("1.10"), "1.10"),
        (Fraction(3, 4), "3/4"),
        (complex(1, -2), {"real": 1.0, "imag": -2.0}),
        (complex(float("nan"), float("inf")), {"real": "nan", "imag": "inf"}),
        (datetime.datetime(2024, 1, 2, 3, 4, 5), "2024-01-02T03:04:05"),
        (datetime.date(2024, 1, 2), "2024-01-02"),
        (datetime.time(3, 4), "03:04:00"),
        (datetime.timedelta(minutes=1, microseconds=500_000), 60.5),
        (PurePosixPath("/a/b"), "/a/b"),
        (Path("rel/x.txt"), str(Path("rel/x.txt"))),
    ],
)
def test_scalar_codecs(value: Any, expected: Any) -> None:
    assert to_json(value, HandleTable()) == expected


class Color(enum.Enum):
    RED = (255, 0, 0)


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


def test_enums_and_builtin_subclasses_become_plain_values() -> None:
    table = HandleTable()
    assert to_json(Color.RED, table) == [255, 0, 0]
    out = to_json([Level.HIGH, Name("x")], table)
    assert out == [3, "x"]
    assert type(out[0]) is int and type(out[1]) is str


# -- containers ---------------------------------------------------------------------------


def test_sequences_and_sets() -> None:
    table = HandleTable()
    assert to_json((1, (2, 3)), table) == [1, [2, 3]]
    assert to_json(deque([1, 2]), table) == [1, 2]
    assert to_json({3, 1, 2}, table) == [1, 2, 3]
    mixed = to_json({1, "a"}, table)
    assert sorted(mixed, key=str) == [1, "a"]
    assert to_json({"b": 1, "a": 2}.keys(), table) == ["b", "a"]


def test_dict_keys() -> None:
    table = HandleTable()
    assert to_json({1: "a", 2.5: "b", False: "c"}, table) == {"1": "a", "2.5": "b", "False": "c"}
    assert to_json({1: "a", "1": "b"}, table) == [[1, "a"], ["1", "b"]]
    assert to_json({(1, 2): "x"}, table) == [[[1, 2], "x"]]
    assert to_json(OrderedDict(a=1), table) == {"a": 1}


def test_object_keys_become_handles_in_pairs() -> None:
    table = HandleTable()
    key = object()
    [[k, v]] = to_json({key: 1}, table)
    assert v == 1 and from_json(k, table) is key


@dataclasses.dataclass
class Point:
    x: int
    tags: tuple[str, ...] = ()


class Pair(NamedTuple):
    left: int
    right: Any


def test_records() -> None:
    table = HandleTable()
    assert to_json(Point(1, ("a",)), table) == {"x": 1, "tags": ["a"]}
    assert to_json(Pair(1, Point(2)), table) == {"left": 1, "right": {"x": 2, "tags": []}}
    Legacy = namedtuple("Legacy", "a b")
    assert to_json(Legacy(1, 2), table) == {"a": 1, "b": 2}
    assert "handle" in to_json(Point, table)  # the class itself is not a record


def test_iterators_are_consumed_up_to_max_items() -> None:
    table = HandleTable()
    assert to_json(map(str, [1, 2]), table) == ["1", "2"]
    assert to_json(zip([1, 2], "ab", strict=True), table) == [[1, "a"], [2, "b"]]
    assert to_json((i * i for i in range(3)), table) == [0, 1, 4]
    assert to_json(itertools.count(), table, max_items=5) == [0, 1, 2, 3, 4]
    assert len(to_json(itertools.count(), table)) == 10_000


def test_ranges() -> None:
    table = HandleTable()
    assert to_json(range(3), table) == [0, 1, 2]
    big = to_json(range(10**12), table)
    assert from_json(big, table) == range(10**12)
    assert from_json(to_json(range(10**30), table), table) == range(10**30)  # len() overflows


def test_depth_guard_and_cycles_become_handles() -> None:
    table = HandleTable()
    nested: list[Any] = []
    for _ in range(10):
        nested = [nested]
    out = to_json(nested, table, max_depth=3)
    assert out[0][0][0]["handle"]
    assert from_json(out, table)[0][0][0] is nested[0][0][0]
    loop: list[Any] = [1]
    loop.append(loop)
    out = to_json(loop, table)
    assert out[0] == 1 and from_json(out[1], table) is loop
    assert len(dumps(out)) < 200


def test_unknown_objects_and_streams_become_handles() -> None:
    table = HandleTable()
    stream = io.StringIO("line\n")
    assert from_json(to_json(stream, table), table) is stream
    assert stream.read() == "line\n"  # not consumed


class FakeArray:
    """Stands in for numpy.ndarray: only the module name and tolist() matter."""

    __module__ = "numpy"

    def tolist(self) -> list[Any]:
        return [[1.0, float("nan")], [object, 2]]


def test_numpy_style_values_use_tolist() -> None:
    table = HandleTable()
    out = to_json(FakeArray(), table)
    assert out[0] == [1.0, "nan"] and out[1][1] == 2
    assert from_json(out[1][0], table) is object


def test_real_numpy_if_installed() -> None:
    np = pytest.importorskip("numpy")
    table = HandleTable()
    assert to_json(np.arange(4).reshape(2, 2), table) == [[0, 1], [2, 3]]
    assert to_json(np.float32(0.5), table) == 0.5
    assert to_json(np.array([np.nan]), table) == ["nan"]


# -- from_json ----------------------------------------------------------------------------


def test_from_json_resolves_nested_descriptors_only() -> None:
    table = HandleTable()
    obj = object()
    desc = table.put(obj)
    value = {"a": [desc, {"handle": desc["handle"]}], "b": {"handle": 5}}
    back = from_json(value, table)
    assert back["a"][0] is obj and back["a"][1] is obj
    assert back["b"] == {"handle": 5}
    extra = {**desc, "other": 1}
    assert from_json(extra, table) == extra


def test_from_json_unknown_handle_raises() -> None:
    with pytest.raises(KeyError, match="unknown or expired handle"):
        from_json([{"handle": "h_missing"}], HandleTable())


# -- size caps ----------------------------------------------------------------------------


def test_cap_result() -> None:
    small = {"a": [1, 2, 3]}
    assert json_size_ok(small, 100)
    assert cap_result(small, 100) is small
    big = ["é" * 100] * 100
    size = len(json.dumps(big, separators=(",", ":"), ensure_ascii=False).encode())
    assert not json_size_ok(big, size - 1) and json_size_ok(big, size)
    capped = cap_result(big, 1000)
    assert capped["truncated"] is True and capped["bytes"] == size
    assert len(capped["preview"]) == 1000
    assert json.dumps(capped)
    assert capped["shape"] == [100]  # a list of texts: an array of them
    volume = [[[0.5] * 40 for _ in range(30)] for _ in range(20)]
    assert cap_result(volume, 1000)["shape"] == [20, 30, 40]
    # No shape for what is no array: a ragged list, a list of objects, an object.
    assert "shape" not in cap_result([[0.5] * 900, [0.5]], 1000)
    assert "shape" not in cap_result([{"a": "b" * 50}] * 100, 1000)
    assert "shape" not in cap_result({"a": "b" * 2000}, 1000)
    # A list's, a text's and a byte string's length: ``len(ds.PixelData)`` of 32768 bytes
    assert capped["length"] == 100
    assert cap_result("x" * 5000, 1000)["length"] == 5000
    pixels = to_json(bytes(32767), HandleTable())
    assert cap_result(pixels, 1000)["length"] == 32767
    assert "length" not in cap_result({"a": "b" * 2000}, 1000)


def test_an_arrays_notice_gives_its_leading_block() -> None:
    """An image too large to answer: the notice holds its corner, as numpy prints one, so a
    test's ``aero[:3, :3]`` can be read (the text preview cuts inside the first row)."""
    image = [[row * 1000 + column for column in range(512)] for row in range(512)]
    notice = cap_result(image, 100_000)
    assert notice["shape"] == [512, 512]
    assert notice["head"] == [row[:16] for row in image[:16]]
    assert notice["head"][2][:3] == [2000, 2001, 2002]
    signal = [float(i) for i in range(100_000)]
    assert cap_result(signal, 10_000)["head"] == signal[:256]
    # A block too large beside the answer's cap is left out (the shape still says the size).
    assert "head" not in cap_result(image, 2_000)
    assert "head" not in cap_result([[0.5] * 900, [0.5]], 1000)  # ragged: no array


def test_non_finite_floats_never_reach_json() -> None:
    out = to_json({"x": [math.nan, -math.inf]}, HandleTable())
    assert dumps(out) == '{"x": ["nan", "-inf"]}'
