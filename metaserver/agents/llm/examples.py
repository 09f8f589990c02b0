"""Example-arguments agent: a first call for tools whose documentation shows none.

The synthesised example (design.py) fits the schema but knows nothing of meaning (``mean([])``
is valid JSON and a ZeroDivisionError). A model proposes arguments a user would pass; they
are checked against the tool's input schema before use, and added as ``origin="llm"`` after
any doctest examples and before the synthesised one, which stays as a fallback. An argument
that is a piece of JSON Schema (``{"type": "object"}`` for a parameter typed ``{}``: a weak
model echoing the schema it was shown) passes any schema and proves nothing: it is refused.
"""

from __future__ import annotations

import asyncio
import json

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, UnknownType

from metaserver.agents.llm.budget import fitted_doc
from metaserver.agents.llm.ledger import Ledger
from metaserver.contracts import JSON, CodeReport, Example, ToolSpec
from metaserver.models import Message, Model, OutputSchema
from metaserver.prompts import render

DOC_CHARS = 2000


async def add_examples(
    specs: list[ToolSpec], code: CodeReport, model: Model, ledger: Ledger
) -> list[ToolSpec]:
    """``specs`` with a validated model example for each tool that has no doctest example."""
    docs = {c.target: (c.signature, c.doc) for c in code.candidates}
    # A notebook tool is proven by its own stored outputs, with its own defaults.
    wanted = [
        i
        for i, s in enumerate(specs)
        if s.parameters and not _has_doctest(s) and s.kind != "notebook"
    ]
    proposals = await asyncio.gather(
        *(_propose(specs[i], docs.get(specs[i].target, ("", "")), model, ledger) for i in wanted)
    )
    result = list(specs)
    for i, arguments in zip(wanted, proposals, strict=True):
        if arguments is None:
            continue
        spec = specs[i]
        if any(e.arguments == arguments for e in spec.examples):
            continue  # the model repeated what we have: nothing gained
        doctest = [e for e in spec.examples if e.origin == "doctest"]
        rest = [e for e in spec.examples if e.origin != "doctest"]
        example = Example(arguments=arguments, origin="llm")
        result[i] = spec.model_copy(update={"examples": [*doctest, example, *rest]})
        ledger.contributed("examples")
    return result


def arguments_schema(spec: ToolSpec) -> dict[str, JSON]:
    """The answer's JSON schema: ``{"arguments": <the tool's input schema>}``, closed."""
    closed = {**spec.input_schema, "additionalProperties": False}
    return {
        "type": "object",
        "properties": {"arguments": closed},
        "required": ["arguments"],
        "additionalProperties": False,
    }


async def _propose(
    spec: ToolSpec, doc: tuple[str, str], model: Model, ledger: Ledger
) -> dict[str, JSON] | None:
    signature, text = doc

    def prompt(chars: int) -> list[Message]:
        return render(
            "examples",
            target=spec.target,
            signature=signature,
            doc=(text or spec.description)[:chars],
            schema=json.dumps(spec.input_schema),
        )

    budget = await model.budget(ledger.deadline)
    chars = fitted_doc(prompt, DOC_CHARS, budget)
    if chars < 0:
        ledger.unfit("tool_example", f"examples: {spec.target}", budget)
        return None
    answer = await ledger.ask(
        model,
        prompt(chars),
        OutputSchema(name="tool_example", json_schema=arguments_schema(spec)),
    )
    if answer is None:
        return None
    arguments = answer.get("arguments")
    if not valid_arguments(spec, arguments):
        ledger.rejected(f"{spec.name}: example arguments do not fit the schema")
        return None
    assert isinstance(arguments, dict)
    echoed = [name for name, value in arguments.items() if schema_shaped(value)]
    if echoed:
        ledger.rejected(
            f"{spec.name}: {echoed[0]} is a JSON Schema, not a value", why="schema_echo"
        )
        return None
    return arguments


def valid_arguments(spec: ToolSpec, arguments: JSON) -> bool:
    """Whether ``arguments`` is an object the tool's input schema accepts, with no extra keys."""
    if not isinstance(arguments, dict):
        return False
    if not set(arguments) <= {p.name for p in spec.parameters}:
        return False
    try:
        return bool(Draft202012Validator(spec.input_schema).is_valid(arguments))
    except (SchemaError, UnknownType):  # a schema we cannot check proves nothing
        return False


SCHEMA_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
SCHEMA_WORDS = frozenset(
    {"type", "properties", "items", "required", "additionalProperties", "enum", "anyOf"}
    | {"oneOf", "allOf", "description", "title", "default", "format", "minimum", "maximum"}
)


def schema_shaped(value: JSON) -> bool:
    """Whether ``value`` is a JSON Schema fragment: every key a schema keyword, and a
    ``type`` that names a JSON type (or a list of them)."""
    if not isinstance(value, dict) or "type" not in value or not set(value) <= SCHEMA_WORDS:
        return False
    kind = value["type"]
    kinds = kind if isinstance(kind, list) else [kind]
    return bool(kinds) and all(isinstance(k, str) and k in SCHEMA_TYPES for k in kinds)


def _has_doctest(spec: ToolSpec) -> bool:
    return any(e.origin == "doctest" for e in spec.examples)
