"""Review agent: a diagnosis for a tool that failed validation, as a repair from a catalogue.

The model never writes code. It picks one repair kind and fills that kind's arguments, which
are checked here: example arguments against the tool's schema, a requirement against a
strict PEP 508 subset (a name and version specifiers: no URL, no path, no pip option), a
parameter against the tool's parameters, a timeout within bounds. Anything else, or no
answer at all, is ``kind="none"``: the caller's deterministic repairs decide.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field

from metaserver.agents.environment.dependencies import is_requirement
from metaserver.agents.llm.allowance import deadline, timed
from metaserver.agents.llm.examples import valid_arguments
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.validate.classify import classify
from metaserver.contracts import JSON, REPAIR_KINDS, LLMUsage, RepairKind, ToolEvidence, ToolSpec
from metaserver.models import Message, ModelConfigError, OutputSchema, model_for
from metaserver.prompts import render
from metaserver.settings import LLMSettings

MAX_TIMEOUT = 600.0
_ERROR_CHARS = 3000


class Diagnosis(BaseModel):
    """One repair for one failed tool; ``kind="none"`` when the model gave no usable one."""

    kind: RepairKind | Literal["none"]
    reason: str = ""
    arguments: dict[str, JSON] | None = Field(default=None, description="next_example only.")
    requirement: str | None = Field(default=None, description="add_dependency only.")
    timeout_seconds: float | None = Field(default=None, description="longer_timeout only.")


NO_DIAGNOSIS = Diagnosis(kind="none", reason="no usable diagnosis from the model")


async def llm_diagnose(
    evidence: ToolEvidence,
    spec: ToolSpec,
    *,
    settings: LLMSettings,
    usage: LLMUsage | None = None,
    signature: str = "",
    doc: str = "",
) -> Diagnosis:
    """Ask the review model why ``spec`` failed; never raises for what the model does.

    Args:
        evidence: what validation saw (arguments, error).
        spec: the failed tool.
        settings: the LLM settings; the review model is ``settings.model_for("review")``.
        usage: the report's LLM usage, counted into when given.
        signature: the callable's signature, when the caller has it.
        doc: the callable's docstring, when the caller has it.

    Returns:
        A validated diagnosis, or one of kind ``"none"`` (no model, failure, invalid answer).
    """
    if not settings.enabled:
        return NO_DIAGNOSIS
    usage = usage or LLMUsage()
    # What the conversion's model allowance has left, after the refinement steps and the
    # diagnoses before this one (none: the per-call timeout alone bounds it).
    ledger = Ledger(usage, max_failures=1_000_000, deadline=deadline(usage))
    error = evidence.error or "(no error text)"
    messages = _messages(evidence, spec, error, signature, doc)
    try:
        with timed(usage):
            async with model_for(settings, "review") as model:
                answer = await ledger.ask(model, messages, _output(spec))
    except ModelConfigError as exc:
        ledger.failed(str(exc))
        return NO_DIAGNOSIS
    if answer is None:
        return NO_DIAGNOSIS
    diagnosis = check_diagnosis(answer, spec, evidence)
    if diagnosis.kind == "none":
        ledger.rejected(f"{spec.name}: diagnosis {str(answer)[:200]}")
    else:
        ledger.contributed(f"diagnosis_{diagnosis.kind}")
    return diagnosis


def check_diagnosis(answer: dict[str, JSON], spec: ToolSpec, evidence: ToolEvidence) -> Diagnosis:
    """The diagnosis ``answer`` describes, if its repair's arguments pass the checks."""
    kind, reason = answer.get("kind"), answer.get("reason")
    reason = reason.strip()[:500] if isinstance(reason, str) else ""
    if kind == "next_example":
        arguments = answer.get("arguments")
        failed = evidence.evidence.arguments if evidence.evidence else None
        if valid_arguments(spec, arguments) and arguments != failed:
            assert isinstance(arguments, dict)
            return Diagnosis(kind=kind, reason=reason, arguments=arguments)
    elif kind == "drop" and reason:
        return Diagnosis(kind=kind, reason=reason)
    elif kind == "add_dependency":
        requirement = answer.get("requirement")
        if isinstance(requirement, str) and is_requirement(requirement.strip()):
            return Diagnosis(kind=kind, reason=reason, requirement=requirement.strip())
    elif kind == "longer_timeout":
        seconds = answer.get("timeout_seconds")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool):
            if 0 < seconds <= MAX_TIMEOUT:
                return Diagnosis(kind=kind, reason=reason, timeout_seconds=float(seconds))
    return NO_DIAGNOSIS


def diagnosis_schema(spec: ToolSpec) -> dict[str, JSON]:
    """The answer's JSON schema: one object per repair kind, each with its own arguments."""
    closed = {**spec.input_schema, "additionalProperties": False}
    nothing: dict[str, JSON] = {"type": "null"}
    fields: dict[str, dict[str, JSON]] = {
        "next_example": {"arguments": closed},
        "drop": {},
        "add_dependency": {"requirement": {"type": "string", "maxLength": 200}},
        "longer_timeout": {
            "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT}
        },
    }
    variants: list[JSON] = []
    for kind in REPAIR_KINDS:
        properties: dict[str, JSON] = {
            "kind": {"const": kind},
            "reason": {"type": "string", "maxLength": 500},
        }
        for name in ("arguments", "requirement", "timeout_seconds"):
            properties[name] = fields[kind].get(name, nothing)
        variants.append(
            {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            }
        )
    return {"anyOf": variants}


def _output(spec: ToolSpec) -> OutputSchema:
    return OutputSchema(name="tool_diagnosis", json_schema=diagnosis_schema(spec))


def _messages(
    evidence: ToolEvidence, spec: ToolSpec, error: str, signature: str, doc: str
) -> list[Message]:
    arguments = evidence.evidence.arguments if evidence.evidence else {}
    return render(
        "review",
        target=spec.target,
        name=spec.name,
        signature=signature,
        doc=(doc or spec.description)[:2000],
        schema=json.dumps(spec.input_schema),
        arguments=json.dumps(arguments, default=str)[:1000],
        # The end of a traceback says most; keep it when the text is long.
        error=error[-_ERROR_CHARS:],
        classified=evidence.failure_type or classify(error),
    )
