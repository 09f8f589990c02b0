"""Argument variants the repair loop tries after a call that our arguments broke."""

from __future__ import annotations

from metaserver.agents.repair.catalogue import synthesised_variants
from metaserver.contracts import JSON, Parameter


def _param(name: str, schema: dict[str, JSON], required: bool = True) -> Parameter:
    return Parameter(name=name, kind="positional_or_keyword", json_schema=schema, required=required)


def test_variants_vary_each_required_parameter_by_its_type() -> None:
    variants = synthesised_variants(
        [_param("n", {"type": "integer"}), _param("flag", {"type": "boolean"})], limit=4
    )
    assert [v.arguments for v in variants] == [
        {"n": 1, "flag": False},
        {"n": 3, "flag": True},
        {"n": 0, "flag": False},
        {"n": 10, "flag": True},
    ]
    assert {v.origin for v in variants} == {"synthesised"}


def test_an_object_with_declared_fields_is_only_sent_with_those_fields() -> None:
    built = {
        "type": "object",
        "properties": {"start": {"type": "number"}, "label": {"type": "string"}},
        "required": ["start"],
    }
    variants = synthesised_variants([_param("acc", {"anyOf": [built, {"type": "null"}]})])
    assert {str(v.arguments) for v in variants} == {str({"acc": {"start": 1.5}})}
    empty = {"type": "object", "properties": {}, "required": []}
    assert synthesised_variants([_param("acc", empty)])[0].arguments == {"acc": {}}


def test_no_required_parameter_means_one_empty_call() -> None:
    (only,) = synthesised_variants([_param("x", {"type": "integer"}, required=False)])
    assert only.arguments == {}
