"""meaning.py: values by what a text or untyped parameter means, and date objects by meaning."""

from __future__ import annotations

import datetime
import re

import pytest

from metaserver.agents.design.meaning import (
    callable_context,
    object_codec,
    typed_by_meaning,
    values_meant,
)
from metaserver.agents.design.synthesis import CODEC_VALUES, synthesise_example
from metaserver.agents.repair.catalogue import synthesised_variants
from metaserver.contracts import JSON, Candidate, Parameter
from metaserver.runtime.decode import decode
from metaserver.runtime.handles import HandleTable


def _first(name: str, description: str | None = None, context: str = "") -> JSON:
    meant = values_meant(name, description, context)
    return meant[0] if meant else None


@pytest.mark.parametrize(
    ("name", "context", "check"),
    [
        ("datestring", "parse_date: Parse an ISO 8601 date string.", datetime.date.fromisoformat),
        ("date", "", datetime.date.fromisoformat),
        ("start_date", "", datetime.date.fromisoformat),
        ("timestring", "parse_time: Parses ISO 8601 times.", datetime.time.fromisoformat),
        ("timestamp", "", datetime.datetime.fromisoformat),
        ("when", "", datetime.datetime.fromisoformat),
        ("datetimestring", "parse_datetime: x", datetime.datetime.fromisoformat),
    ],
)
def test_a_date_ish_text_parameter_gets_iso_text(name: str, context: str, check: object) -> None:
    value = _first(name, None, context)
    assert isinstance(value, str)
    assert callable(check)
    check(value)  # parses as the ISO form of its kind, or raises


def test_the_callable_says_what_a_text_named_parameter_holds() -> None:
    # ``parse_duration(datestring)``: the name says "a string", the callable what string;
    # the date stays among the values after it, for the repair step's next try.
    meant = values_meant("datestring", None, "parse_duration: Parses ISO 8601 durations.")
    assert isinstance(meant[0], str) and re.fullmatch(r"P[\dYMWDTHS]+", meant[0])
    assert "2024-01-02" in meant[1:]


@pytest.mark.parametrize(
    ("name", "description", "context", "pattern"),
    [
        ("value", None, "url: Return whether the value is a valid URL.", r"https?://\S+"),
        ("link", None, "", r"https?://\S+"),
        ("page", "The URL of the page to fetch.", "", r"https?://\S+"),
        ("value", None, "email: Validate an email address.", r"[^@\s]+@[\w.]+\.\w+"),
        ("recipient", None, "", r"[^@\s]+@[\w.]+\.\w+"),
        ("value", None, "uuid: x", r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}"),
        ("value", None, "ipv4: x", r"\d+\.\d+\.\d+\.\d+"),
        ("value", None, "ipv6: x", r"[0-9a-f:]+::[0-9a-f]+"),
        ("hostname", None, "", r"[a-z]+\.[a-z]+"),
        ("value", None, "domain: x", r"[a-z]+\.[a-z]+"),
        ("color", None, "", r"#[0-9a-f]{6}"),
        ("locale", None, "", r"[a-z]{2}_[A-Z]{2}"),
        ("lang", None, "", r"[a-z]{2}"),
        ("country_code", None, "", r"[A-Z]{2}"),
        ("currency", None, "", r"[A-Z]{3}"),
        ("version", None, "", r"\d+\.\d+\.\d+"),
        ("pattern", None, "", r".*[\[.].*"),
        ("expr", "A regular expression to search for.", "", r".*[\[.].*"),
        ("json_string", None, "", r"[\[{].*[\]}]"),
        ("format", None, "strftime: Directive Meaning", r"%Y-%m-%d"),
        ("fmt", "An strftime format, such as %Y.", "", r"%Y-%m-%d"),
    ],
)
def test_each_family_by_name_description_or_callable(
    name: str, description: str | None, context: str, pattern: str
) -> None:
    value = _first(name, description, context)
    assert isinstance(value, str) and re.fullmatch(pattern, value), value


def test_the_description_beats_the_name() -> None:
    assert _first("address", "The e-mail address to notify.") == "user@example.com"
    assert _first("date", "A duration such as P1D.") == "P1DT2H30M"


def test_a_summary_speaks_for_a_generic_name_only_when_it_is_text() -> None:
    context = "check: Return whether the given value is a valid e-mail address."
    assert values_meant("value", None, context, text=True) == ["user@example.com"]
    assert values_meant("value", None, "evaluate: Evaluate over its domain.") == []


def test_its_own_name_beats_its_callable_unless_generic() -> None:
    # ``combine(date, time)`` in a date callable: ``time`` is a time, not the callable's date.
    assert _first("time", None, "combine_date: x") == "03:04:05"
    assert _first("value", None, "combine_date: x") == "2024-01-02"


@pytest.mark.parametrize(
    ("name", "context"),
    [
        ("format", "render: Render the report."),  # a bare format is not a date format
        ("value", "slugify: Make a slug."),  # no meaning: the old fallback
        ("update", ""),  # "date" inside another word
        ("day", ""),  # a day of the month is a number
        ("data", ""),
    ],
)
def test_no_meaning_where_nothing_says(name: str, context: str) -> None:
    assert values_meant(name, None, context) == []


def test_a_writer_gets_a_file_name_a_reader_does_not() -> None:
    assert values_meant("filename", None, "write_csv: Write rows.") == ["output.txt"]
    assert values_meant("filename", None, "read_csv: Read rows.") == []


def _param(name: str, schema: dict[str, JSON] | None = None, **kw: object) -> Parameter:
    return Parameter(name=name, kind="positional_or_keyword", json_schema=schema or {}, **kw)  # type: ignore[arg-type]


def test_synthesis_precedence_codec_then_schema_then_meaning_then_name() -> None:
    context = "parse_date: Parse a date."
    params = [
        _param("datestring", {"type": "string"}),  # text: its meaning
        _param("date", {"type": "string", "format": "date"}, codec="date"),  # codec form
        _param("url", {"enum": ["a", "b"]}),  # schema enum beats meaning
        _param("when", {"type": "integer"}),  # typed: never text
        _param("email", {"type": "string", "format": "time"}),  # schema format beats meaning
        _param("items"),  # untyped, no meaning: old fallback by name
    ]
    arguments = synthesise_example(params, context).arguments
    assert arguments == {
        "datestring": "2024-01-02",
        "date": CODEC_VALUES["date"],
        "url": "a",
        "when": 2,
        "email": CODEC_VALUES["time"],
        "items": [1, 2, 3],
    }


def test_synthesis_of_a_list_of_dates_and_a_generic_text() -> None:
    params = [_param("dates", {"type": "array", "items": {"type": "string"}}), _param("s")]
    arguments = synthesise_example(params, "is_url: Check a URL.").arguments
    assert synthesise_example([_param("s", {"type": "string"})], "check: A URL?").arguments == {
        "s": "https://example.com/index.html?q=1"
    }
    assert arguments["dates"] == ["2024-01-02"] * 3
    assert arguments["s"] == "https://example.com/index.html?q=1"


def test_repair_tries_the_other_meaningful_values_first() -> None:
    context = callable_context("pkg.mod.parse_duration", "Parse a duration.")
    variants = synthesised_variants([_param("datestring")], context)
    values = [v.arguments["datestring"] for v in variants]
    assert values[:3] == ["P1DT2H30M", "PT1H", "P1Y2M10DT2H30M"]
    assert "2024-01-02" in values and len(values) == len({repr(v) for v in values})
    typed = synthesised_variants([_param("url", {"type": "integer"})], context, limit=2)
    assert [v.arguments["url"] for v in typed] == [1, 3]  # typed: by its type only


@pytest.mark.parametrize(
    ("name", "description", "context", "codec"),
    [
        ("tdate", None, "date_isoformat: Format date strings.", "date"),
        ("tdt", None, "strftime: Directive", "datetime"),
        ("ttime", None, "time_isoformat: Format time strings.", "time"),
        ("d", "A datetime.date object.", "days_until: x", "date"),
        ("value", "The datetime instance to show.", "show: x", "datetime"),
        ("datestring", None, "parse_date: Parse a date.", None),  # a parser takes text
        ("datestring", None, "format_date: x", None),  # its name says text
        ("tdate", None, "shift: x", None),  # nothing says object
        ("value", None, "format_number: x", None),  # a formatter of no date
        ("dt", "The datetime on which to replace the time zone", "default_tz: x", "datetime"),
        ("dt", "The datetime string to read.", "default_tz: x", None),  # its text
        ("dt", "The date to parse.", "parse: x", None),
        ("wait", "The time to wait.", "sleep: x", None),  # seconds as often as a time
        ("tdate", None, "get_information: x", None),  # "format" inside another word
    ],
)
def test_object_codec(name: str, description: str | None, context: str, codec: str | None) -> None:
    assert object_codec(name, description, context) == codec


def test_typed_by_meaning_decodes_iso_text_and_passes_the_rest() -> None:
    candidate = Candidate(
        target="pkg:date_isoformat",
        name="date_isoformat",
        signature="(tdate, format='%Y')",
        summary="Format date strings.",
        parameters=[
            _param("tdate"),
            _param("format", {"type": "string", "default": "%Y"}, required=False),
        ],
    )
    typed = typed_by_meaning(candidate)
    tdate, fmt = typed.parameters
    assert tdate.codec == "?date" and fmt == candidate.parameters[1]
    value = synthesise_example(typed.parameters).arguments["tdate"]
    assert decode(value, tdate.codec, HandleTable()) == datetime.date(2024, 1, 2)
    assert decode(5, tdate.codec, HandleTable()) == 5  # not text: passes as it is
    coded = candidate.model_copy(update={"parameters": [_param("tdate", codec="date")]})
    assert typed_by_meaning(coded) is coded  # a codec stays the probe's
