"""Probe helper (runs INSIDE the target environment; standard library only): parameters
typed by the instances their examples pass.

An untyped parameter that an example passes an instance a class holds (``Geodesic.WGS84``)
or a module of the package holds (``USD``: held.py) takes that class; the example
shows it by name, ``{"attribute": "WGS84"}``, which the class's codec decodes.
"""

from .schemas import Unsupported, parameter_schema
from .stdlib_values import VALUE_CLASSES
from .symbols import TEXT_CODEC, symbol_class

__all__ = ["typed_by_examples"]


def typed_by_examples(params, examples, annotated, constructors):
    """An untyped parameter an example passes a class's own instance (``Geodesic.WGS84``,
    shown as ``{"attribute": "WGS84"}``) takes that class: its schema and codec become the
    class's, so that the codecs decode the name into the instance. An example whose name
    lands on a parameter that does not offer it (sympy's ``cos(pi)``: a text codec) is no
    example: the codec would turn ``{"attribute": "pi"}`` into something else; nor is one
    that passes arithmetic over symbols as text (``"x**2 + 1"``: symbols.py) to a
    parameter whose codec does not parse it (one annotated ``str``, say)."""
    held = [(example, example.pop("_held", {})) for example in examples]
    for _, found in held:
        for name, cls in found.items():
            param = next((p for p in params if p["name"] == name), None)
            if param is None or param["codec"] is not None or name in annotated:
                continue
            try:
                schema, codec = parameter_schema(cls, constructors)
            except Unsupported:
                continue
            if cls in VALUE_CLASSES and codec != "timedelta":
                # One example's date is not all the parameter takes (portion's ``closed``:
                # dates, numbers): the codec decodes its form, the rest passes as JSON.
                schema = {"anyOf": [schema.get("anyOf", [schema])[0], {}]}
                codec = "?" + codec
            for key in ("default", "description"):
                if key in param["json_schema"]:
                    schema = dict(schema, **{key: param["json_schema"][key]})
            param["json_schema"], param["codec"] = schema, codec
    schemas = {p["name"]: p["json_schema"] for p in params}
    codecs = {p["name"]: p["codec"] for p in params}
    text = symbol_class()
    examples[:] = [
        e
        for e, found in held
        if all(_offers(schemas.get(n), e["arguments"].get(n)) for n in found)
        and all(codecs.get(n) == TEXT_CODEC for n, cls in found.items() if cls is text)
    ]


def _offers(schema, value):
    """Whether ``schema`` offers ``value`` when it is an instance by name (``{"attribute":
    "USD"}``); any other value (a date's ISO text) is the codec's own form."""
    if not (isinstance(value, dict) and "attribute" in value):
        return True
    if isinstance(schema, dict):
        attribute = (schema.get("properties") or {}).get("attribute")
        if isinstance(attribute, dict) and value.get("attribute") in attribute.get("enum", ()):
            return True
        return any(_offers(s, value) for s in schema.get("anyOf", ()))
    return False
