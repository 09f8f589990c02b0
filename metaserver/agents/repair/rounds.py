"""Validation rounds: validate every tool, then repair and re-validate the failed ones.

At most ``settings.max_rounds`` validation runs. Each round plans one repair per failed tool
(:mod:`metaserver.agents.repair.catalogue`; where it gives up and a model is configured, the
review model is asked once, :mod:`metaserver.agents.repair.diagnosis`), applies the plan,
and calls again only the tools it touched. A tool no repair can save hands its place to the
next design held in reserve.
"""

from __future__ import annotations

import logging
import re

from packaging.utils import canonicalize_name

from metaserver.agents.conversion import Draft
from metaserver.agents.environment.dependencies import add_packages
from metaserver.agents.repair.catalogue import TIMEOUT_FACTOR, Repair, RepairState, plan_repairs
from metaserver.agents.repair.diagnosis import ask_review_model
from metaserver.agents.validate.calls import validate
from metaserver.agents.validate.tutorial_budget import TutorialClock, over_budget
from metaserver.contracts import Example, ToolEvidence, ToolSpec
from metaserver.exceptions import DownloadTooLarge, MetaServerError

logger = logging.getLogger(__name__)
# uv's resolver: "Because mpl-toolkits was not found in the package registry and you ...".
_NOT_ON_INDEX = re.compile(r"\b([A-Za-z0-9][A-Za-z0-9._-]*) was not found in the package registry")
_NAME_END = re.compile(r"[\s\[<>=!~;@]")  # where a requirement's name ends


async def validate_and_repair(
    draft: Draft, specs: list[ToolSpec], reserve: list[ToolSpec]
) -> list[ToolEvidence]:
    """Validate ``specs``, then repair and re-validate the failed tools, round by round.

    A tool that no repair can save is replaced by the next design from ``reserve`` (appended
    to ``specs``, taken out of ``reserve``), validated in the next round, so that a server is
    not left short of the tools it could have had. ``draft.report.rounds`` counts the
    validation runs that really happened.

    Returns:
        The evidence of every spec, in the order of ``specs`` as it ends.
    """
    settings, report = draft.settings, draft.report
    environment, sandbox = draft.environment, draft.sandbox
    tutorials = TutorialClock(settings.timeouts.tutorials)  # shared by every round
    first = await validate(
        draft.server_dir, specs, environment, settings, sandbox, tutorials=tutorials
    )
    results = {e.name: e for e in first}
    report.rounds = 1
    state = RepairState()
    replaced: set[str] = set()
    while report.rounds < settings.max_rounds:
        planned = plan_repairs(specs, results, state, draft.workspace.path)
        if settings.llm.enabled:
            planned = await ask_review_model(planned, specs, results, state, settings, report)
        repairs = [r for r in planned if r.kind != "drop"]
        dropped = [r.tool for r in planned if r.kind == "drop" and r.tool not in replaced]
        replaced.update(dropped)
        results.update(explained_drops([r for r in planned if r.tool in dropped], results))
        fresh = reserve[: len(dropped)]
        del reserve[: len(fresh)]
        if not repairs and not fresh:
            break
        if fresh:
            logger.info("validate: %s stand in for dropped tools", ", ".join(s.name for s in fresh))
            specs.extend(fresh)
        if fresh:
            draft.render(specs)
        attempts = await apply_repairs(draft, repairs, specs, state)
        touched = {r.tool for r in repairs} | {spec.name for spec in fresh}
        again = await validate(
            draft.server_dir,
            specs,
            environment,
            settings,
            sandbox,
            attempts,
            only=touched,
            tutorials=tutorials,
        )
        kinds = {r.tool: r.kind for r in repairs}
        for evidence in again:
            if evidence.status == "passed":
                evidence.repaired = kinds.get(evidence.name)
        # A repaired tutorial the budget leaves unrun keeps the failure it was run to.
        results.update({e.name: e for e in again if not (over_budget(e) and e.name in results)})
        report.rounds += 1
    return needing_failed_tools([results[spec.name] for spec in specs])


def explained_drops(
    planned: list[Repair], results: dict[str, ToolEvidence]
) -> dict[str, ToolEvidence]:
    """The evidence of each dropped tool whose drop knows why it failed (a tutorial's run
    past the tutorials' budget, a module whose install was past the download bound), with
    that as its error: the report then says why, not only what failed."""
    explained = {}
    for repair in planned:
        evidence = results.get(repair.tool)
        if repair.kind != "drop" or not repair.error or evidence is None:
            continue
        if evidence.status == "failed":
            explained[repair.tool] = evidence.model_copy(update={"error": repair.error})
    return explained


def needing_failed_tools(evidence: list[ToolEvidence]) -> list[ToolEvidence]:
    """``evidence`` with each passed tool whose proving session calls a tool that did not
    pass marked failed: a published server holds only passed tools, so its own tests (and
    its users) could not build what that session built. shapely 2.2.0's
    ``PreparedGeometry.intersects`` was proven on ``prep(triangle)``; ``prep`` itself failed
    on made-up arguments, and the replay of every tool in the published server broke."""
    evidence = list(evidence)
    while True:
        passed = {e.name for e in evidence if e.status == "passed"}
        missing = {
            e.name: sorted({s.tool for s in e.evidence.session if s.tool and s.tool not in passed})
            for e in evidence
            if e.status == "passed" and e.evidence is not None
        }
        missing = {name: tools for name, tools in missing.items() if tools}
        if not missing:
            return evidence
        evidence = [
            e.model_copy(
                update={
                    "status": "failed",
                    "error": f"its session builds what it needs with {', '.join(missing[e.name])}, "
                    "which did not pass validation: a published server would not have it",
                    "failure_type": "api_inference_error",
                }
            )
            if e.name in missing
            else e
            for e in evidence
        ]


def without_unknown(packages: list[str], error: str) -> list[str]:
    """``packages`` less those uv's ``error`` says the package index does not have."""
    missing = {canonicalize_name(m) for m in _NOT_ON_INDEX.findall(error)}
    return [p for p in packages if canonicalize_name(_NAME_END.split(p)[0]) not in missing]


async def install_requirements(
    draft: Draft, requirements: list[str], companions: list[str], state: RepairState
) -> None:
    """Install what the failed tools lack, each install within the repair's download bound.

    With a notebook's other imports first; if one of those cannot be installed (an import
    name that is no distribution), the missing modules alone; if those together are past
    the bound, each alone, so that one heavy requirement (a tutorial's import that pulls in
    torch) costs the others nothing. A failure is logged: the tools that needed it fail
    again in the next round and say why."""
    state.installed.update(requirements)
    tries = [requirements + companions, requirements] if companions else [requirements]
    while tries:
        packages = tries.pop(0)
        try:
            await _install(draft, packages)
        except DownloadTooLarge as exc:
            logger.warning("repair: %s", exc)
            if len(packages) == 1:
                state.refused[packages[0]] = str(exc)
            if packages == requirements and len(requirements) > 1:
                for requirement in requirements:
                    try:
                        await _install(draft, [requirement])
                    except DownloadTooLarge as alone:
                        logger.warning("repair: %s", alone)
                        state.refused[requirement] = str(alone)
                    except MetaServerError as alone:
                        logger.warning("repair: %s", alone)
                    else:
                        state.installed.add(requirement)
                return
        except MetaServerError as exc:
            logger.warning("repair: %s", exc)
            # An import name that no distribution has (a namespace another one ships, such
            # as a plotting library's toolkits) fails every try it is in: the others are
            # tried without it.
            known = without_unknown(packages, str(exc))
            if known and known != packages and known not in tries:
                tries.insert(0, known)
        else:
            state.installed.update(packages)
            return


async def _install(draft: Draft, packages: list[str]) -> None:
    bound = draft.settings.repair_install_max_mb
    await add_packages(
        draft.environment, packages, draft.settings, draft.sandbox, max_download_mb=bound
    )


async def apply_repairs(
    draft: Draft, repairs: list[Repair], specs: list[ToolSpec], state: RepairState
) -> dict[str, list[Example]]:
    """Carry out ``repairs``: installs, longer budgets; the examples to try, per tool."""
    settings = draft.settings
    needed = [r for r in repairs if r.kind == "add_dependency" and r.package]
    requirements = sorted({r.package for r in needed if r.package})
    companions = sorted({c for r in needed for c in r.companions} - set(requirements))
    if requirements:
        await install_requirements(draft, requirements, companions, state)
    attempts: dict[str, list[Example]] = {}
    for repair in repairs:
        logger.info("repair %s: %s", repair.tool, repair.reason)
        spec = next(s for s in specs if s.name == repair.tool)
        if repair.kind == "longer_timeout":
            state.extended.add(spec.name)
            current = spec.timeout or settings.timeouts.tool_call
            spec.timeout = max(repair.timeout or current * TIMEOUT_FACTOR, current)
        elif repair.kind == "next_example":
            attempts[spec.name] = repair.examples
        elif repair.kind == "array_codec":
            state.arrayed.add(spec.name)
            spec.parameters = [
                p.model_copy(update={"codec": "numpy"}) if p.name in repair.parameters else p
                for p in spec.parameters
            ]
            spec.codecs = sorted({*spec.codecs, "numpy"})
            attempts[spec.name] = repair.examples
    if any(r.kind in ("longer_timeout", "array_codec") for r in repairs):
        # A script or notebook tool times its own run with the budget written in server.py:
        # a longer budget for the client's call alone timed out at the old one again; a
        # codec is written there too.
        draft.render(specs)
    return attempts
