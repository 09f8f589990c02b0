"""schemas: the schema and codec of a parameter from its annotation."""

from __future__ import annotations


def test_a_union_arm_that_only_checks_values_decodes_nothing() -> None:
    import numbers

    from metaserver.probe.schemas import parameter_schema

    class _Checks(type):
        def __instancecheck__(cls, instance: object) -> bool:
            return isinstance(instance, str) and len(instance) > 0

    class Word(metaclass=_Checks):
        """Non-empty text."""

    def ctor_schema(cls: type) -> dict[str, object]:
        return {"type": "object", "properties": {}}

    schema, codec = parameter_schema(numbers.Number | Word, ctor_schema)
    # ``Number | Word`` takes 1 or "one" as they are: no codec builds a Word from 1
    assert codec is None
    assert {} in schema["anyOf"]


def test_a_library_subclass_of_a_time_type_names_its_class_in_the_codec() -> None:
    import datetime

    from metaserver.probe.schemas import class_schema

    class Duration(datetime.timedelta):
        """A library's duration, with methods timedelta lacks."""

    schema, codec = class_schema(Duration)
    assert codec == f"timedelta:{Duration.__module__}:{Duration.__qualname__}"
    assert schema["anyOf"][0]["type"] == "number"
    # the standard class keeps the bare codec
    assert class_schema(datetime.timedelta)[1] == "timedelta"
    assert class_schema(datetime.date)[1] == "date"


def test_a_plain_arm_beside_a_class_only_a_handle_gives_is_plain_json() -> None:
    from metaserver.probe.schemas import HANDLE_SCHEMA, parameter_schema

    class Zone:
        """No JSON builds one (``ctor_schema`` says so)."""

    def no_ctor(cls: type) -> None:
        return None

    schema, codec = parameter_schema(Zone | str, no_ctor)
    # "UTC" reaches the callable as it is, and a handle is still listed (and replaced)
    assert codec is None
    assert schema["anyOf"] == [{"type": "string"}, HANDLE_SCHEMA]
    # Beside None alone, or alone, the class still takes a handle only
    assert parameter_schema(Zone | None, no_ctor)[1] == "handle"
    assert parameter_schema(Zone, no_ctor)[1].startswith("handle:")


def test_a_sentinel_arm_is_left_out_and_record_arms_leave_the_text_plain() -> None:
    import enum
    from typing import NamedTuple

    from metaserver.probe.schemas import HANDLE_SCHEMA, parameter_schema

    class Undefined(enum.Enum):
        """The typed idiom for "not given": one member."""

        TOKEN = 0

    class Parts(NamedTuple):
        scheme: str
        host: str

    # ``val: str | Undefined``: the sentinel is the default, never sent
    assert parameter_schema(str | Undefined) == ({"anyOf": [{"type": "string"}]}, None)
    # ``str | Parts``: the record's codec would refuse the documented text
    schema, codec = parameter_schema(str | Parts)
    assert codec is None
    assert schema["anyOf"] == [{"type": "string"}, HANDLE_SCHEMA]
    # an enum of several members is a value, not a sentinel
    assert parameter_schema(enum.Enum("Mode", "A B"))[1] is not None


def test_a_handle_schema_takes_the_descriptor_or_the_bare_id() -> None:
    from jsonschema import Draft202012Validator

    from metaserver.probe.schemas import HANDLE_SCHEMA
    from metaserver.runtime.handles import HANDLE_PREFIX

    validator = Draft202012Validator(HANDLE_SCHEMA)
    assert HANDLE_SCHEMA["pattern"] == f"^{HANDLE_PREFIX}"
    assert validator.is_valid({"handle": f"{HANDLE_PREFIX}abc", "type": "pkg.Thing"})
    assert validator.is_valid(f"{HANDLE_PREFIX}abc")  # the bare id
    assert not validator.is_valid("not a handle")
    assert not validator.is_valid({"type": "pkg.Thing"})
    assert not validator.is_valid(3)
