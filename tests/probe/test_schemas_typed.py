"""typed_by_examples: an untyped parameter takes the class of the instance its example
passes by name; an example whose name its parameter does not offer is dropped."""

from __future__ import annotations

import datetime
from typing import Any

from metaserver.probe.schemas import typed_by_examples


class Shape:
    """A class that holds one of its instances, as ``Geodesic.WGS84`` does."""

    def __init__(self, sides: int) -> None:
        self.sides = sides


Shape.SQUARE = Shape(4)  # type: ignore[attr-defined]


def _param(name: str, codec: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "json_schema": schema, "codec": codec, "required": True}


def test_an_untyped_parameter_takes_the_class_and_keeps_its_example() -> None:
    params = [_param("shape", None, {})]
    example = {"arguments": {"shape": {"attribute": "SQUARE"}}, "_held": {"shape": Shape}}
    examples = [example]
    typed_by_examples(params, examples, set(), {})
    assert examples == [{"arguments": {"shape": {"attribute": "SQUARE"}}}]
    assert params[0]["codec"] is not None and params[0]["codec"].endswith("Shape")


def test_a_name_its_parameters_codec_does_not_offer_drops_the_example() -> None:
    # sympy's ``cos(pi)``: ``arg`` has a text codec, which would make a Dict of the name.
    params = [_param("arg", "sympy", {"type": ["string", "number"]})]
    held = {"arguments": {"arg": {"attribute": "pi"}}, "_held": {"arg": Shape}}
    plain = {"arguments": {"arg": "pi"}}
    examples = [held, plain]
    typed_by_examples(params, examples, set(), {})
    assert examples == [plain]
    # an annotated parameter is not retyped either: its example goes the same way
    params = [_param("arg", None, {})]
    examples = [{"arguments": {"arg": {"attribute": "SQUARE"}}, "_held": {"arg": Shape}}]
    typed_by_examples(params, examples, {"arg"}, {})
    assert examples == [] and params[0]["codec"] is None


def test_a_value_in_its_codecs_own_form_is_kept() -> None:
    params = [_param("when", None, {})]
    examples = [{"arguments": {"when": "2019-01-14"}, "_held": {"when": datetime.date}}]
    typed_by_examples(params, examples, set(), {})
    assert examples == [{"arguments": {"when": "2019-01-14"}}]
    assert params[0]["codec"] == "?date"
