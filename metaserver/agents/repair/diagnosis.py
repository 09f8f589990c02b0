"""The review model's diagnosis of a failed tool, as a repair of the catalogue.

The model picks among the same kinds the catalogue plans
(:data:`metaserver.contracts.REPAIR_KINDS`), and each is applied exactly as the catalogue's
own (:mod:`metaserver.agents.repair.rounds`): an example to try, a requirement to install, a
longer budget, or a drop.
"""

from __future__ import annotations

from metaserver.agents.llm import Diagnosis, llm_diagnose
from metaserver.agents.repair.catalogue import Repair, RepairState
from metaserver.contracts import ConversionReport, Example, ToolEvidence, ToolSpec
from metaserver.settings import Settings


async def ask_review_model(
    planned: list[Repair],
    specs: list[ToolSpec],
    results: dict[str, ToolEvidence],
    state: RepairState,
    settings: Settings,
    report: ConversionReport,
) -> list[Repair]:
    """Where the catalogue gives up on a tool, let the review model pick a repair, once.

    A documented value the code disagrees with is a finding, not a puzzle: not asked. The
    model's answer is validated by ``llm_diagnose``; "none" keeps the drop.
    """
    by_name = {spec.name: spec for spec in specs}
    revised: list[Repair] = []
    for repair in planned:
        evidence = results[repair.tool]
        if (
            repair.kind != "drop"
            or repair.tool in state.diagnosed
            or (
                evidence.failure_type == "repo_internal_bug"
                and evidence.evidence is not None
                and evidence.evidence.check == "expected-value"
            )
        ):
            revised.append(repair)
            continue
        state.diagnosed.add(repair.tool)
        diagnosis = await llm_diagnose(
            evidence, by_name[repair.tool], settings=settings.llm, usage=report.llm
        )
        revised.append(repair_from(repair, diagnosis, state))
    return revised


def repair_from(repair: Repair, diagnosis: Diagnosis, state: RepairState) -> Repair:
    """The repair ``diagnosis`` names, or ``repair`` (the drop) when it adds nothing new."""
    reason = f"review model: {diagnosis.reason or diagnosis.kind}"
    if diagnosis.kind == "next_example" and diagnosis.arguments is not None:
        example = Example(arguments=diagnosis.arguments, origin="llm")
        return Repair(tool=repair.tool, kind="next_example", examples=[example], reason=reason)
    if diagnosis.kind == "longer_timeout" and repair.tool not in state.extended:
        return Repair(
            tool=repair.tool,
            kind="longer_timeout",
            timeout=diagnosis.timeout_seconds,
            reason=reason,
        )
    if (
        diagnosis.kind == "add_dependency"
        and diagnosis.requirement
        and diagnosis.requirement not in state.installed
    ):
        return Repair(
            tool=repair.tool, kind="add_dependency", package=diagnosis.requirement, reason=reason
        )
    return repair
