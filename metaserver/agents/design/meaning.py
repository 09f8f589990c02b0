"""Values by what a parameter means, for text (or untyped) parameters with no example.

A schema that says only "a string" (or nothing) let synthesis send ``"abc"``, which every
parser, validator and formatter refuses: ``parse_date(datestring)`` failed on
"Unrecognised ISO 8601 date format: 'abc'" and the tool was dropped. Here the parameter's
name, its docstring description and its callable's name and summary choose a value of the
kind it means (an ISO date, a URL, an e-mail address...). One table, first match wins:

* the parameter's description (the most specific words about it);
* its own name, unless that is generic (``value``, ``s``) or only says "a string"
  (``datestring``, ``date_str``), when the callable's name and summary come first
  (``parse_duration(datestring)`` parses a duration, ``url(value)`` checks a URL);
* every other matching rule's values follow, for the repair step's next tries.

Precedence with the rest of synthesis.py: a codec's JSON form, then the schema's
constraints (enum, format, type), then the meaning, then the old fallback by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from metaserver.contracts import JSON, Candidate


@dataclass(frozen=True)
class Meaning:
    kind: str
    named: str
    """Regex on a name split into ``_words_`` (``_parse_date_``): the words that mean it."""
    described: str
    """Regex on descriptions and summaries (case-insensitive)."""
    values: tuple[JSON, ...]
    """The first is synthesised; the others are the repair step's next tries."""


def _stems(*stems: str) -> str:
    # A word of the name, maybe "t"-prefixed as in ``tdate`` or ISO-prefixed, maybe a
    # plural or a "string" form (``datestring``, ``date_str``, ``urls``).
    return rf"_(?:t|iso_?)?(?:{'|'.join(stems)})(?:e?s|_?str|_?string|_?text)?_"


_ISO_DATE = "2024-01-02"
_ISO_DATETIME = "2024-01-02T03:04:05"

RULES: tuple[Meaning, ...] = (
    # Durations before dates: "an ISO 8601 duration" also says "ISO"; P-form first (ISO).
    Meaning(
        "duration",
        _stems("duration", "timedelta"),
        r"\bdurations?\b|\btimedelta\b|\bP\d+[YMWDT]",
        ("P1DT2H30M", "PT1H", "P1Y2M10DT2H30M"),
    ),
    # Date and time together before either alone: "date-time", "timestamp", "dt", "when".
    Meaning(
        "datetime",
        _stems("datetime", "date_time", "dt", "timestamp", "when", "moment", "instant"),
        r"date[- ]?times?\b|\btimestamps?\b|\bdatetime\b",
        (_ISO_DATETIME, "2024-01-02 03:04:05", "2024-01-02T03:04:05+00:00"),
    ),
    # Dates: also the start/end/birth date words (their own word ``date``).
    Meaning(
        "date",
        _stems("date", "birthday"),
        r"\bdates?\b|\byyyy-mm-dd\b",
        (_ISO_DATE, "20240102"),
    ),
    # A time of day: ``time``, ``ttime``, ``timestring``; "hh:mm" in a description.
    Meaning(
        "time",
        _stems("time", "clock", "time_of_day"),
        r"\btimes? of day\b|\bhh:mm|\btime string\b|\biso 8601 times?\b",
        ("03:04:05", "03:04"),
    ),
    Meaning(
        "timezone",
        _stems("tz", "tzname", "timezone", "zone"),
        r"\btime ?zones?\b|\btz\b",
        ("UTC", "Europe/Paris"),
    ),
    # An e-mail before a URL or host: its description may say "address" or "domain" too.
    Meaning(
        "email",
        _stems("email", "e_mail", "mail", "mail_address", "recipient", "sender"),
        r"\be-?mail\b",
        ("user@example.com",),
    ),
    Meaning(
        "url",
        _stems("url", "uri", "link", "href", "endpoint", "website"),
        r"\bur[li]s?\b|\bhttps?://|\bweb ?address\b",
        ("https://example.com/index.html?q=1", "http://example.com"),
    ),
    Meaning(
        "uuid",
        _stems("uuid", "guid"),
        r"\bu?uid\b|\bguid\b",
        ("12345678-1234-5678-1234-567812345678",),
    ),
    # IPv6 before IPv4 before a bare "ip", whose first value is an IPv4 address.
    Meaning("ipv6", _stems("ipv6", "ip6"), r"\bipv6\b", ("2001:db8::1",)),
    Meaning("ipv4", _stems("ipv4", "ip4"), r"\bipv4\b", ("192.168.0.1",)),
    Meaning(
        "ip",
        _stems("ip", "ip_address", "ipaddr", "addr"),
        r"\bip\b|\bip address",
        ("192.168.0.1", "2001:db8::1"),
    ),
    Meaning(
        "mac",
        _stems("mac", "mac_address"),
        r"\bmac address",
        ("00:1a:2b:3c:4d:5e",),
    ),
    Meaning(
        "hostname",
        _stems("host", "hostname", "domain", "domain_name", "fqdn", "server"),
        r"\bhost ?names?\b|\bdomain names?\b|\bdomains?\b|\bhosts?\b",
        ("example.com", "www.example.com"),
    ),
    # A colour: hex first (what "color" parameters parse most), then a CSS name.
    Meaning(
        "colour",
        _stems("colou?r", "hex_colou?r", "rgb", "fg", "bg"),
        r"\bcolou?rs?\b|\bhex\b.*\bcolou?r|#rrggbb|#[0-9a-f]{6}\b",
        ("#ff8800", "red", "ff8800"),
    ),
    # A locale carries a region; a language alone is its two-letter code.
    Meaning("locale", _stems("locale"), r"\blocales?\b", ("en_US", "en-US", "en")),
    Meaning(
        "language",
        _stems("lang", "language", "language_code", "lang_code"),
        r"\blanguages?\b|\biso 639",
        ("en", "en_US"),
    ),
    Meaning(
        "country",
        _stems("country", "country_code"),
        r"\bcountry\b|\bcountries\b|\biso 3166",
        ("US", "DE", "USA"),
    ),
    Meaning(
        "currency",
        _stems("currency", "currency_code", "ccy"),
        r"\bcurrency\b|\bcurrencies\b|\biso 4217",
        ("USD", "EUR"),
    ),
    Meaning(
        "version",
        _stems("version", "ver", "release", "semver"),
        r"\bversions?\b|\bsemver\b",
        ("1.2.3", "2.0.0"),
    ),
    Meaning(
        "regex",
        _stems("regex", "regexp", "pattern", "pat", "re"),
        r"\bregular expressions?\b|\bregexp?s?\b",
        (r"[a-z]+\d*", "a.c"),
    ),
    # strftime-like formats only when something says so: a bare ``format`` may be
    # "json" or "png"; "%Y" or "strftime" (or a strftime-named callable) is a date format.
    Meaning(
        "strftime",
        r"_strf?time_|_strptime_",
        r"\bstrf?time\b|\bstrptime\b|%[YmdHMS]|\bdirectives?\b|\bdate ?formats?\b",
        ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"),
    ),
    Meaning(
        "json",
        _stems("json", "json_data", "json_doc"),
        r"\bjson\b",
        ('{"a": 1, "b": [1, 2]}', "[1, 2, 3]"),
    ),
)

# A name that says what the value is only through its callable: ``url(value)``, ``slug(s)``.
_GENERIC = {
    "value", "val", "v", "s", "string", "str", "text", "txt", "input", "inp", "arg",
    "obj", "o", "item", "source", "src", "raw", "content",
}  # fmt: skip
# A name whose last word says only "it is text": the callable says what text.
_TEXT_SUFFIX = re.compile(r"(?:string|str|text)$")
# A name that is a format: strftime-like only where the callable or description is a date's.
_FORMAT = re.compile(r"^_(?:t?fmt|format|format_str(?:ing)?|date_?format|time_?format)_$")
# A callable that writes a file may be given a name to create; a reader is left to fail.
_WRITER = re.compile(r"_(?:write\w*|save\w*|dump\w*|export\w*|to_file|store)_")
_FILE = re.compile(r"_(?:t?file(?:_?name)?|fname|out(?:put)?_?(?:file|path)?|path|dest\w*)_")


def words(name: str) -> str:
    """``parseDate`` -> ``_parse_date_``: the name's words, for the tables' regexes."""
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return "_" + "_".join(w for w in re.split(r"[^a-z0-9]+", split) if w) + "_"


def values_meant(
    name: str, description: str | None = "", context: str = "", text: bool = False
) -> list[JSON]:
    """Text values the parameter ``name`` means, best first; [] when nothing says.

    ``context`` is the callable's name, then its summary (``"parse_date: Parse an ISO
    8601 date string"``). The summary speaks for a generic name only when the schema says
    ``text``: an untyped ``value`` of a summary that says "over its domain" is no host."""
    described = description or ""
    own = words(name)
    callable_name, _, summary = context.partition(":")
    called = words(callable_name)
    generic = own.strip("_") in _GENERIC or bool(_TEXT_SUFFIX.search(own.strip("_")))
    found: list[Meaning] = [r for r in RULES if re.search(r.described, described, re.I)]
    by_name = [r for r in RULES if re.search(r.named, own)]
    by_callable = [r for r in RULES if re.search(r.named, called)]
    if generic and text:
        by_callable += [r for r in RULES if re.search(r.described, summary, re.I)]
    if generic:
        found += by_callable + by_name
    else:
        found += by_name
    if _FORMAT.search(own):  # a format: strftime-like when its callable is a date's
        dated = {"strftime", "datetime", "date", "time", "duration"}
        if any(r.kind in dated for r in by_callable):
            found.append(next(r for r in RULES if r.kind == "strftime"))
    if _FILE.search(own) and _WRITER.search(called):
        # A writer creates the file it is given (in the work directory); a reader given a
        # made-up name fails honestly and is listed apart as reading files.
        return ["output.txt"]
    values: list[JSON] = []
    for rule in found:
        values += [v for v in rule.values if v not in values]
    return values


# A callable word that says it renders an object as text (``date_isoformat``, ``strftime``).
_FORMATTER = re.compile(r"\w*isoformat|format(?:ted|s)?|strftime|humani[sz]e|natural\w*")


def object_codec(name: str, description: str | None, context: str) -> str | None:
    """``date``, ``datetime`` or ``time`` for an untyped parameter that takes such an
    object, not its text: its description says "object" or "instance" of it, or its
    callable formats one (``date_isoformat(tdate)``, ``strftime(tdt, format)``). A
    parser's parameter (``parse_date(datestring)``) takes the text, and gets none."""
    described = description or ""
    called = words(context.partition(":")[0])
    formats = any(_FORMATTER.fullmatch(word) for word in called.strip("_").split("_"))
    said = re.search(r"\b(?:object|instance)s?\b", described, re.I)
    # "dt: The datetime on which to replace the time zone": the thing, not its text (a
    # bare "the time" is as often a number of seconds, so only dates and datetimes).
    noun = re.search(r"\b(?:a|an|the)\s+(datetime|date)\b(?![-.])", described, re.I)
    if noun and re.search(r"\b(?:strings?|text|str|iso|formatt?(?:ed)?)\b", described, re.I):
        noun = None
    if not (formats or said or noun) or re.search(r"_(?:parse|from)\w*_|_strptime_", called):
        return None
    named = re.search(r"\bdatetime\.(datetime|date|time)\b", described)
    if said and named:  # "a datetime.date object": the module's name is not the kind
        return named.group(1)
    if noun:
        return noun.group(1).lower()
    kinds = {"datetime": "datetime", "date": "date", "time": "time"}
    for rule in RULES:
        if rule.kind not in kinds:
            continue
        if said and re.search(rule.described, described, re.I):
            return kinds[rule.kind]
        if re.search(rule.named, words(name)) and not _TEXT_SUFFIX.search(name.lower()):
            return kinds[rule.kind]
    return None


def typed_by_meaning(candidate: Candidate) -> Candidate:
    """The candidate with each untyped parameter that takes a date, datetime or time
    object (``object_codec``) given that codec, leniently as the probe types a parameter
    by its example (probe/schemas.py): ISO text is decoded, any other value passes as it is."""
    if candidate.kind in ("script", "notebook"):
        return candidate  # command-line words and notebook parameters are text as given
    context = callable_context(candidate.name, candidate.summary)
    parameters = []
    for parameter in candidate.parameters:
        untyped = parameter.codec is None and "type" not in parameter.json_schema
        untyped = untyped and "anyOf" not in parameter.json_schema
        kind = object_codec(parameter.name, parameter.description, context) if untyped else None
        if kind is None or parameter.kind in ("var_positional", "var_keyword"):
            parameters.append(parameter)
            continue
        form: dict[str, JSON] = {"type": "string", "format": _FORMATS[kind]}
        schema: dict[str, JSON] = {"anyOf": [form, {}]}
        schema.update({k: v for k, v in parameter.json_schema.items() if k != "anyOf"})
        parameters.append(parameter.model_copy(update={"json_schema": schema, "codec": "?" + kind}))
    if parameters == candidate.parameters:
        return candidate
    return candidate.model_copy(update={"parameters": parameters})


_FORMATS = {"datetime": "date-time", "date": "date", "time": "time"}


def callable_context(name: str, summary: str = "") -> str:
    """``"parse_date: Parse an ISO 8601 date string."``: what values_meant reads of a
    callable (its last name, then its summary's first line)."""
    short = name.rpartition(".")[2] or name
    return f"{short}: {summary.strip().splitlines()[0] if summary.strip() else ''}"
