"""probe_types: the schema and codec of a parameter from its annotation."""

from __future__ import annotations


def test_a_union_arm_that_only_checks_values_decodes_nothing() -> None:
    import numbers

    from metaserver.agents.analysis.probe.probe_types import parameter_schema

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
