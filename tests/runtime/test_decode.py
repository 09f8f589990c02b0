"""Parameter codecs (runtime.decode), standard-library types, both ways: object -> JSON ->
object is the identity, property-based where a strategy exists."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from metaserver.runtime import invoke
from metaserver.runtime.codecs import to_json
from metaserver.runtime.decode import CODECS, CodecError, decode, set_work_dir
from metaserver.runtime.handles import HandleTable


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Pair(NamedTuple):
    left: int
    right: str


class Box:
    def __init__(self, width: int, height: int = 1) -> None:
        self.width, self.height = width, height


Box.UNIT = Box(1)  # type: ignore[attr-defined]
Box.LABEL = "not a box"  # type: ignore[attr-defined]

HERE = f"{__name__}:"


def round_trip(value: Any, codec: str) -> Any:
    handles = HandleTable()
    encoded = to_json(value, handles)
    json.dumps(encoded, allow_nan=False)  # what reaches the client is JSON
    return decode(json.loads(json.dumps(encoded)), codec, handles)


@given(st.datetimes(timezones=st.none() | st.timezones()))
def test_datetime_both_ways(value: datetime.datetime) -> None:
    # ISO 8601 keeps the wall time and the UTC offset, not the zone's name: compare those.
    # (Plain == is False across zones for a time in a DST gap or fold, by PEP 495.)
    back = round_trip(value, "datetime")
    assert back.replace(tzinfo=None) == value.replace(tzinfo=None)
    assert back.utcoffset() == value.utcoffset()


@given(st.dates())
def test_date_both_ways(value: datetime.date) -> None:
    assert round_trip(value, "date") == value


@given(st.times())
def test_time_both_ways(value: datetime.time) -> None:
    assert round_trip(value, "time") == value


@given(st.timedeltas(min_value=datetime.timedelta(days=-9999), max_value=datetime.timedelta(9999)))
def test_timedelta_both_ways(value: datetime.timedelta) -> None:
    # total_seconds is a float: microseconds survive for durations under ~285 years.
    assert round_trip(value, "timedelta") == value


class Moment(datetime.datetime):
    """A library's own date-time: methods the standard class lacks."""

    def label(self) -> str:
        return f"moment {self.isoformat()}"


class Day(datetime.date):
    pass


class Span(datetime.timedelta):
    def in_words(self) -> str:
        return f"{int(self.total_seconds())} seconds"


def test_a_library_subclass_of_a_time_type_is_decoded_as_itself() -> None:
    # codec "datetime:module:Moment" (probe/schemas.py): built as Moment, whose methods the
    # tool calls; the plain codec still builds the standard class.
    moment = decode("2024-01-02T03:04:05", f"datetime:{HERE}Moment", HandleTable())
    assert type(moment) is Moment and moment.label() == "moment 2024-01-02T03:04:05"
    assert type(decode("2024-01-02T03:04:05", "datetime", HandleTable())) is datetime.datetime
    assert type(decode("2024-01-02", f"date:{HERE}Day", HandleTable())) is Day
    span = decode(3600, f"timedelta:{HERE}Span", HandleTable())
    assert type(span) is Span and span.in_words() == "3600 seconds"
    assert type(decode({"days": 1}, f"timedelta:{HERE}Span", HandleTable())) is Span


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimal_both_ways(value: Decimal) -> None:
    assert round_trip(value, "decimal") == value


@given(st.fractions())
def test_fraction_both_ways(value: Fraction) -> None:
    assert round_trip(value, "fraction") == value


@given(st.complex_numbers(allow_nan=False, allow_infinity=False))
def test_complex_both_ways(value: complex) -> None:
    assert round_trip(value, "complex") == value


@given(st.sampled_from(Colour))
def test_enum_both_ways(value: Colour) -> None:
    assert round_trip(value, f"enum:{HERE}Colour") is value


def test_enum_accepts_a_member_name() -> None:
    assert decode("RED", f"enum:{HERE}Colour", HandleTable()) is Colour.RED


@given(st.builds(Point, st.floats(allow_nan=False, allow_infinity=False), st.floats(-1e9, 1e9)))
def test_dataclass_both_ways(value: Point) -> None:
    assert round_trip(value, f"dataclass:{HERE}Point") == value


@given(st.builds(Pair, st.integers(), st.text()))
def test_namedtuple_both_ways(value: Pair) -> None:
    assert round_trip(value, f"namedtuple:{HERE}Pair") == value


def test_records_accept_positions_too() -> None:
    assert decode([1.0, 2.0], f"dataclass:{HERE}Point", HandleTable()) == Point(1.0, 2.0)


class Model(BaseModel):
    name: str
    size: int = 3


def test_pydantic_model_both_ways() -> None:
    value = Model(name="a", size=5)
    assert round_trip(value, f"pydantic:{HERE}Model") == value


def test_new_builds_from_constructor_arguments_or_takes_a_handle() -> None:
    handles = HandleTable()
    built = decode({"width": 3}, f"new:{HERE}Box", handles)
    assert (built.width, built.height) == (3, 1)
    assert decode([4, 5], f"new:{HERE}Box", handles).height == 5
    descriptor = handles.put(built)
    assert decode(descriptor, f"new:{HERE}Box", handles) is built


def test_handle_codec_takes_only_handles() -> None:
    handles = HandleTable()
    box = Box(1)
    assert decode(handles.put(box), f"handle:{HERE}Box", handles) is box
    with pytest.raises(CodecError, match="expected a handle"):
        decode({"width": 1}, f"handle:{HERE}Box", handles)
    with pytest.raises(KeyError):
        decode({"handle": "h_nope"}, f"handle:{HERE}Box", handles)


class _TextMeta(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, str) and len(instance) >= 1


class Text(metaclass=_TextMeta):
    """A type that cannot be built, only checked: non-empty text (like inflect's Word)."""


def test_new_passes_a_value_that_already_is_an_instance() -> None:
    handles = HandleTable()
    assert decode("egg", f"new:{HERE}Text", handles) == "egg"
    with pytest.raises(CodecError, match="Text"):
        decode("", f"new:{HERE}Text", handles)  # not an instance: built, and refused


def test_a_bare_handle_id_is_accepted_where_a_handle_is() -> None:
    handles = HandleTable()
    box = Box(7)
    handle_id = handles.put(box)["handle"]
    assert decode(handle_id, f"handle:{HERE}Box", handles) is box
    assert decode(handle_id, f"new:{HERE}Box", handles) is box
    assert decode(handle_id, "datetime", handles) is box  # any codec: the object it names
    # an id-shaped text the table does not hold: a clear error for a handle parameter...
    with pytest.raises(KeyError, match="unknown or expired handle 'h_gone'"):
        decode("h_gone", f"handle:{HERE}Box", handles)
    # ...and plain data for any other codec, which builds from it as before
    assert decode("h_gone", f"new:{HERE}Box", handles).width == "h_gone"
    # parameters without a codec take text as text, even a text that is an id
    assert decode(handle_id, None, handles) == handle_id
    # through invoke, as a method's receiver
    width = invoke(
        lambda b: b.width, ["b"], {"b": handle_id}, handles, codecs={"b": f"new:{HERE}Box"}
    )
    assert width == 7


def test_paths_are_confined_to_the_work_directory(tmp_path: Path) -> None:
    set_work_dir(tmp_path)
    handles = HandleTable()
    assert decode("a/b.txt", "path", handles) == tmp_path.resolve() / "a" / "b.txt"
    assert round_trip(Path("x.csv"), "path") == tmp_path.resolve() / "x.csv"
    for escape in ("../outside.txt", "/etc/passwd", "a/../../b"):
        with pytest.raises(CodecError, match="outside"):
            decode(escape, "path", handles)


def test_a_relative_path_stays_as_written_where_the_process_runs_in_the_work_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_work_dir(tmp_path)
    monkeypatch.chdir(tmp_path)  # as a generated server runs: in its work directory
    handles = HandleTable()
    # what a callable that reads the path itself sees is what the client wrote
    assert decode("this/thing.ext", "path", handles) == Path("this/thing.ext")
    (tmp_path / "data.txt").write_text("same file")
    assert decode("data.txt", "path", handles).read_text() == "same file"
    # an absolute path inside, or one that climbs back in, is resolved as before
    inside = str(tmp_path / "a.txt")
    assert decode(inside, "path", handles) == tmp_path.resolve() / "a.txt"
    assert decode("a/../b.txt", "path", handles) == tmp_path.resolve() / "b.txt"
    with pytest.raises(CodecError, match="outside"):
        decode("../outside.txt", "path", handles)


@pytest.mark.parametrize(
    ("codec", "value"),
    [
        ("datetime", "not a date"),
        ("date", 12),
        ("decimal", "1.2.3"),
        ("fraction", "1/0"),
        ("complex", "abc"),
        ("timedelta", "soon"),
        ("nonsense", 1),
        (f"enum:{HERE}Colour", "BLUE"),
    ],
)
def test_bad_json_forms_raise_codec_errors(codec: str, value: Any) -> None:
    with pytest.raises(CodecError):
        decode(value, codec, HandleTable())


def test_none_passes_through_for_optional_parameters() -> None:
    assert decode(None, "datetime", HandleTable()) is None


def test_every_codec_the_probe_may_name_exists() -> None:
    from metaserver.agents.design.synthesis import CODEC_VALUES

    assert set(CODEC_VALUES) <= set(CODECS)


def test_invoke_decodes_by_codec_and_keeps_constructed_objects() -> None:
    handles = HandleTable()

    def later(when: datetime.date, days: int) -> datetime.date:
        return when + datetime.timedelta(days=days)

    result = invoke(later, [], {"when": "2024-02-28", "days": 2}, handles, codecs={"when": "date"})
    assert result == "2024-03-01"
    box = invoke(Box, [], {"width": 2}, handles, keep=True)
    assert set(box) == {"handle", "type", "repr"}
    width = invoke(lambda b: b.width, ["b"], {"b": box}, handles, codecs={"b": f"new:{HERE}Box"})
    assert width == 2


def test_a_class_attribute_that_holds_an_instance_is_a_receiver() -> None:
    handles = HandleTable()
    for codec in (f"new:{HERE}Box", f"handle:{HERE}Box"):
        assert decode({"attribute": "UNIT"}, codec, handles) is Box.UNIT  # type: ignore[attr-defined]
    # Only the class's own instances: no other attribute, nothing private, no other codec.
    with pytest.raises(CodecError, match="no instance attribute 'LABEL'"):
        decode({"attribute": "LABEL"}, f"new:{HERE}Box", handles)
    with pytest.raises(CodecError):
        decode({"attribute": "__class__"}, f"new:{HERE}Box", handles)
    assert decode({"attribute": "UNIT"}, None, handles) == {"attribute": "UNIT"}


def test_a_lenient_codec_decodes_its_form_and_passes_anything_else() -> None:
    handles = HandleTable()
    # typed by a documented example's date: a date's text is a date, a number a number
    assert decode("2019-01-14T06:00:00", "?datetime", handles) == datetime.datetime(2019, 1, 14, 6)
    assert decode(3, "?datetime", handles) == 3  # not seconds since 1970: only text decodes
    assert decode([1, 2], "?decimal", handles) == [1, 2]
    assert decode("1.50", "?decimal", handles) == Decimal("1.50")
    assert decode("not a date", "?date", handles) == "not a date"
    with pytest.raises(CodecError):
        decode("not a date", "date", handles)  # the strict codec still refuses it


def test_a_class_made_per_context_is_our_codec_error_not_the_librarys() -> None:
    # Its __module__/__qualname__ name a path under which nothing is found.
    made = type("mpf", (), {"__module__": "fractions", "__qualname__": "Context.mpf"})
    target = f"{made.__module__}:{made.__qualname__}"
    with pytest.raises(CodecError, match="does not import"):
        decode("1.5", f"new:{target}", HandleTable())


def test_a_path_into_another_environments_packages_is_the_same_file_here() -> None:
    import sysconfig

    from metaserver.runtime.decode import shipped_file

    here = Path(sysconfig.get_paths()["purelib"]) / "pytest" / "__init__.py"
    assert here.is_file()
    # the probe read the data path in the environment where it was built
    elsewhere = "/build/home/environments/x-1/lib/python3.11/site-packages/pytest/__init__.py"
    assert shipped_file(elsewhere) == str(here.resolve())
    assert shipped_file("/build/lib/site-packages/../../etc/passwd") is None
    assert shipped_file("/etc/passwd") is None
