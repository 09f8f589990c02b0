"""Arguments that fit a tool's schema, for callables whose sources show no literal call.

Parameters with a codec get a value in the codec's JSON form (an ISO date, a unit string,
nested lists for an array), so that validation can call the tool before any client does.
"""

from __future__ import annotations

import re

from metaserver.agents.design.meaning import values_meant
from metaserver.contracts import JSON, Example, Parameter
from metaserver.probe.arguments import ANY_JSON

# A value of each codec's JSON form that the libraries concerned accept.
CODEC_VALUES: dict[str, JSON] = {
    "datetime": "2024-01-02T03:04:05",
    "date": "2024-01-02",
    "time": "03:04:05",
    "timedelta": 3600,
    "decimal": "1.5",
    "fraction": "3/4",
    "complex": {"real": 1.0, "imag": 2.0},
    "path": "example.txt",
    "numpy": [1.0, 2.0, 3.0],
    "dataframe": [{"a": 1, "b": 2.5}, {"a": 2, "b": 3.5}],
    "series": [1.0, 2.0, 3.0],
    "sympy": "x**2 + 2*x + 1",
    "pint": "3 meter",
    "networkx": {"nodes": [1, 2, 3], "edges": [[1, 2], [2, 3]]},
}

MATRIX: JSON = [[1.0, 2.0], [3.0, 4.0]]
"""An array whose description says it has two axes: square and invertible, as a payoff,
transition or covariance matrix must often be."""
_TWO_AXES = re.compile(
    r"\bmatrix\b|\b(?:2|two)[- ]?d(?:imensional)?\b|\(\s*\w+\s*,\s*\w+\s*\)", re.I
)


def synthesise_example(parameters: list[Parameter], context: str = "") -> Example:
    """Arguments that fit the schema, for a callable whose sources show no call.

    ``context`` is the callable's name and summary (meaning.callable_context): what a
    parameter named only ``value`` means (``url(value)``)."""
    arguments: dict[str, JSON] = {}
    for parameter in parameters:
        if parameter.required:
            arguments[parameter.name] = value_for_parameter(parameter, context)
    spread = [p for p in parameters if p.kind == "var_positional"]
    if not arguments and spread:
        # ``cos(*args, **kwargs)`` (a wrapper) called with nothing says nothing: one item.
        items = spread[0].json_schema.get("items")
        schema = items if isinstance(items, dict) else {}
        arguments[spread[0].name] = [value_for(spread[0].name, schema, None, context)]
    return Example(arguments=arguments, origin="synthesised")


def value_for_parameter(parameter: Parameter, context: str = "") -> JSON:
    """A value for one parameter: from its codec's JSON form, else from its schema, else
    from what it means (meaning.py)."""
    codec = (parameter.codec or "").partition(":")[0]
    if codec == "pint" and (parameter.codec or "").endswith("Unit"):
        return "meter"
    if codec == "numpy" and _TWO_AXES.search(parameter.description or ""):
        return MATRIX  # "a payoff matrix", "2 dimensional array", "(n, m)": not a vector
    if codec in CODEC_VALUES:
        return CODEC_VALUES[codec]
    if codec == "expression":  # a function, written in its variables (runtime/expressions.py)
        names = (parameter.codec or "").partition(":")[2].partition("@")[0].split(",")
        return " + ".join(f"{name}**2" for name in names if name) or "x**2"
    schema = parameter.json_schema
    held = _held_instance(schema) if codec in ("new", "handle") else None
    if held is not None:  # the library's own instance beats constructor arguments we guess
        return held
    if codec and "anyOf" in schema:  # the JSON form comes first, the handle object last
        schema = schema["anyOf"][0]
    return value_for(parameter.name, schema, parameter.description, context)


def value_for(
    name: str, schema: dict[str, JSON], description: str | None = None, context: str = ""
) -> JSON:
    """A value of ``schema``: its enum, format or type's; for text or an unconstrained one,
    a value of what it means (meaning.values_meant), else one its name suggests."""
    if schema.get("enum"):
        return schema["enum"][0]
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"] or schema["anyOf"]
        return value_for(name, options[0], description, context)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    formats: dict[str, JSON] = {
        "date-time": CODEC_VALUES["datetime"],
        "date": CODEC_VALUES["date"],
        "time": CODEC_VALUES["time"],
    }
    if kind == "string" and schema.get("format") in formats:
        return formats[str(schema["format"])]
    if kind in ("string", None):  # text or anything: what the parameter means, if known
        said = description or schema.get("description")
        # "Any JSON value" says nothing of meaning: read as such it made JSON text
        # ('{"a": 1, ...}') for untyped numbers (uncertainties' pinv, PDG_precision).
        said = said if isinstance(said, str) and said != ANY_JSON else None
        meant = values_meant(name, said, context, text=kind == "string")
        if meant:
            return meant[0]
    by_type: dict[str, JSON] = {
        "integer": 2,
        "number": 1.5,
        "string": "abc",
        "boolean": True,
        "null": None,
    }
    if kind == "object" and isinstance(schema.get("properties"), dict):
        required = schema.get("required", list(schema["properties"]))
        fields = schema["properties"].items()
        return {k: value_for(k, s, None, context) for k, s in fields if k in required}
    if kind == "object":
        return {}
    if kind == "array" and "prefixItems" in schema:  # a tuple: one value per position
        return [value_for(name, item, description, context) for item in schema["prefixItems"]]
    if kind == "array":
        items = schema.get("items", {"type": "integer"})
        return [value_for(name, items, description, context) for _ in range(3)]
    if isinstance(kind, str) and kind in by_type:
        return by_type[kind]
    return _by_name(name)


def _held_instance(schema: dict[str, JSON]) -> JSON:
    """``{"attribute": NAME}`` for the first instance the class holds (``Geodesic.WGS84``)
    that the schema offers (probe/schemas.with_attributes), else None."""
    names = held_names(schema)
    return {"attribute": names[0]} if names else None


def held_names(schema: JSON) -> list[str]:
    """The names of the instances a class or a module holds that a schema offers as
    ``{"attribute": NAME}`` (probe/schemas.with_attributes), in its order."""
    arms = schema.get("anyOf") if isinstance(schema, dict) else None
    for arm in arms if isinstance(arms, list) else []:
        properties = arm.get("properties") if isinstance(arm, dict) else None
        attribute = properties.get("attribute") if isinstance(properties, dict) else None
        names = attribute.get("enum") if isinstance(attribute, dict) else None
        if isinstance(names, list) and names:
            return [name for name in names if isinstance(name, str)]
    return []


def _by_name(name: str) -> JSON:
    lowered = name.lower()
    if any(word in lowered for word in ("iter", "seq", "list", "items", "values", "data")):
        return [1, 2, 3]
    if lowered in ("n", "k", "size", "count", "num", "number", "width", "length"):
        return 2
    if lowered == "s" or any(word in lowered for word in ("text", "string", "name", "word")):
        return "abc"
    return 1
