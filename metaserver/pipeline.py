"""One conversion: the stages of DESIGN.md in order, timed, with the report as the result.

    fetch -> environment -> analysis -> design -> generate -> validate -> register

A bad SOURCE raises :class:`UserError` before anything is written; every later failure is
recorded in the returned report (status ``failed``) instead of raised.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import shutil
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from metaserver.agents.analysis.analyse import analyse
from metaserver.agents.analysis.coverage import readme_coverage
from metaserver.agents.analysis.usage import mine_usage, usage_names
from metaserver.agents.design.specs import design
from metaserver.agents.environment.build import build_environment
from metaserver.agents.environment.cache import EnvironmentCache
from metaserver.agents.environment.dependencies import add_packages
from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.agents.fetch.staging import OWNER_SUFFIX, staging_lease
from metaserver.agents.fetch.workspace_cache import WorkspaceCache
from metaserver.agents.generate.render import generate
from metaserver.agents.llm import Diagnosis, llm_diagnose, refine_specs
from metaserver.agents.register import register
from metaserver.agents.repair.catalogue import TIMEOUT_FACTOR, Repair, RepairState, plan_repairs
from metaserver.agents.store_budget import enforce_budget
from metaserver.agents.validate.calls import check_protocol, validate
from metaserver.agents.validate.selftest import run_generated_tests
from metaserver.contracts import (
    MIN_TOOLS_PASSED,
    ConversionReport,
    Environment,
    EnvironmentSummary,
    Example,
    Failure,
    LLMUsage,
    Source,
    ToolEvidence,
    ToolSpec,
    Workspace,
)
from metaserver.exceptions import (
    EnvironmentBuildError,
    FailureType,
    MetaServerError,
    UserError,
    ValidationError,
)
from metaserver.registry.files import discard_conversion, remove_tree
from metaserver.sandbox import Sandbox, get_sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

Progress = Callable[[str, float, float], Awaitable[None]]
STAGES = ("fetch", "environment", "analysis", "generate", "validate", "register")
# Designs kept in reserve, to stand in for tools that fail validation beyond repair.
RESERVE_TOOLS = 6
_SERVER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")


def server_name_for(text: str) -> str:
    """A registry name from a distribution or directory name: lowercase, [a-z0-9_-]."""
    name = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:48]
    return name or "server"


def check_server_name(name: str) -> str:
    if not _SERVER_NAME.match(name):
        raise UserError(
            f"invalid server name {name!r}: use 1-48 of a-z, 0-9, '-' and '_', "
            "starting with a letter or digit"
        )
    return name


class _Timer:
    def __init__(self, report: ConversionReport, progress: Progress | None) -> None:
        self.report, self.progress = report, progress
        self.started = time.monotonic()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.report.seconds[name] = round(time.monotonic() - started, 2)

    async def announce(self, name: str) -> None:
        logger.info("conversion: %s", name)
        if self.progress is not None:
            await self.progress(name, float(STAGES.index(name)), float(len(STAGES)))


async def convert(
    source: str,
    *,
    settings: Settings,
    ref: str | None = None,
    name: str | None = None,
    max_tools: int | None = None,
    progress: Progress | None = None,
) -> ConversionReport:
    """Convert ``source`` into a validated, registered MCP server.

    Raises:
        UserError: the source or a parameter is invalid; nothing was left in the home.
    """
    parsed = parse_source(source, ref)
    if name is not None:
        check_server_name(name)
    sandbox = get_sandbox(settings.sandbox)
    token = secrets.token_hex(4)
    report = ConversionReport(
        server=name or "", source=source, llm=LLMUsage(model=settings.llm.model)
    )
    timer = _Timer(report, progress)
    try:
        return await _fetch_and_convert(
            parsed, report, timer, settings, sandbox, token, name, max_tools
        )
    except asyncio.CancelledError:
        # A stopped conversion (tasks/cancel, a client gone) leaves nothing behind: its
        # processes were killed on the way out, its directories go here, in a thread (an
        # environment is thousands of files) that a second cancellation does not interrupt.
        await asyncio.shield(asyncio.to_thread(_discard_conversion, settings, report.server, token))
        raise


async def _fetch_and_convert(
    parsed: Source,
    report: ConversionReport,
    timer: _Timer,
    settings: Settings,
    sandbox: Sandbox,
    token: str,
    name: str | None,
    max_tools: int | None,
) -> ConversionReport:
    await timer.announce("fetch")
    staged = settings.staging_dir / f"fetch-{token}"
    # The lease lets a later run clean what a killed one left in staging.
    with timer.stage("fetch"), _cleanup_on_user_error(settings), staging_lease(staged):
        try:
            workspace = await fetch(parsed, staged, settings)
        except UserError:
            raise
        except MetaServerError as exc:
            return _finish(report, timer, exc)
    report.server = name or server_name_for(workspace.distribution or Path(parsed.location).name)
    report.commit = workspace.commit
    workspace = _settle(workspace, settings.workspaces_dir / f"{report.server}-{token}")
    try:
        return await _convert_workspace(
            workspace, report, timer, settings, sandbox, token, max_tools or settings.max_tools
        )
    except MetaServerError as exc:
        return _finish(report, timer, exc)


async def _convert_workspace(
    workspace: Workspace,
    report: ConversionReport,
    timer: _Timer,
    settings: Settings,
    sandbox: Sandbox,
    token: str,
    max_tools: int,
) -> ConversionReport:
    venv = settings.environments_dir / f"{report.server}-{token}"
    server_dir = settings.servers_dir / f"{report.server}-{token}"
    report.output_dir = str(server_dir)

    await timer.announce("environment")
    with timer.stage("environment"):
        try:
            environment = await build_environment(workspace, venv, settings, sandbox)
        except EnvironmentBuildError as exc:
            # Every strategy tried, with its decisive lines, belongs in the report.
            report.environment = EnvironmentSummary(ok=False, attempts=exc.attempts)
            raise
    report.environment = EnvironmentSummary(
        ok=True,
        strategy=environment.strategy,
        python=environment.python,
        seconds=environment.seconds,
        requested_version=environment.requested_version,
        installed_version=environment.installed_version,
        cached=environment.cached,
        attempts=environment.attempts,
    )

    # The stores just grew (or were used): keep them within their disk budget.
    await asyncio.to_thread(_trim_stores, settings)

    await timer.announce("analysis")
    with timer.stage("analysis"):
        code = await analyse(workspace, environment, settings, sandbox)
        usage = mine_usage(workspace.path, usage_names(code))  # static: nothing is imported
        specs = design(code, max_tools, usage)
        reserve = _reserve(design(code, max_tools + RESERVE_TOOLS, usage), specs)
    # --- LLM refinement (issue 8): optional, bounded by settings.llm.budget_seconds; whatever
    # the model does, the worst result is the design above. Usage goes into report.llm.
    if settings.llm.enabled:
        with timer.stage("llm"):
            specs = await refine_specs(
                code,
                specs,
                max_tools=max_tools,
                settings=settings.llm,
                usage=report.llm,
                mined=usage,
            )
    # --- end LLM refinement
    logger.info("analysis: %d candidates, %d tools designed", len(code.candidates), len(specs))

    await timer.announce("generate")
    with timer.stage("generate"):
        generate(
            server_dir,
            report.server,
            specs,
            workspace,
            environment,
            max_bytes=settings.result_max_bytes,
        )

    await timer.announce("validate")
    with timer.stage("validate"):
        evidence = await _validate_and_repair(
            server_dir, specs, reserve, workspace, environment, settings, sandbox, report
        )
        passed = [s for s, e in zip(specs, evidence, strict=True) if e.status == "passed"]
        report.tools = _final_statuses(evidence, published=len(passed) >= MIN_TOOLS_PASSED)
        report.tools_passed = len(passed)
        report.coverage = readme_coverage(usage, passed)
        if passed:
            # The published server holds only proven tools; check it still answers.
            generate(
                server_dir,
                report.server,
                passed,
                workspace,
                environment,
                evidence,
                max_bytes=settings.result_max_bytes,
            )
            await check_protocol(server_dir, passed, environment, settings, sandbox)
            if settings.run_generated_tests and len(passed) >= MIN_TOOLS_PASSED:
                replay = await run_generated_tests(server_dir, environment, settings, sandbox)
                if not replay.ok:
                    why = "timed out" if replay.timed_out else replay.tail(5)
                    raise ValidationError(f"the generated server's own tests failed: {why}")

    if report.tools_passed < MIN_TOOLS_PASSED:
        shutil.rmtree(venv, ignore_errors=True)
        return _finish(
            report,
            timer,
            None,
            Failure(
                type=_dominant_failure(evidence),
                detail=f"{report.tools_passed} tools passed validation; at least "
                f"{MIN_TOOLS_PASSED} are needed",
            ),
        )

    await timer.announce("register")
    with timer.stage("register"):
        report.status = "success"
        report.seconds["total"] = round(time.monotonic() - timer.started, 2)
        # A new version (the old ones stay callable); report.changes says what changed.
        register(settings, report, workspace, environment, server_dir, passed, evidence)
    return _finish(report, timer, None)


def _reserve(longer: list[ToolSpec], chosen: list[ToolSpec]) -> list[ToolSpec]:
    """The next-best designs after ``chosen``: they stand in for tools that get dropped."""
    targets = {spec.target for spec in chosen}
    names = {spec.name for spec in chosen}
    return [s for s in longer if s.target not in targets and s.name not in names]


async def _validate_and_repair(
    server_dir: Path,
    specs: list[ToolSpec],
    reserve: list[ToolSpec],
    workspace: Workspace,
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    report: ConversionReport,
) -> list[ToolEvidence]:
    """Validate, then repair and re-validate the failed tools, for at most B rounds.

    A tool that no repair can save is replaced by the next design from ``reserve`` (appended
    to ``specs``), validated in the next round, so that a server is not left short of the
    tools it could have had. Only tools a repair touched, and the replacements, are called
    again; ``report.rounds`` counts the validation runs that really happened.
    """
    results = {e.name: e for e in await validate(server_dir, specs, environment, settings, sandbox)}
    report.rounds = 1
    state = RepairState()
    replaced: set[str] = set()
    while report.rounds < settings.max_rounds:
        planned = plan_repairs(specs, results, state, workspace.path)
        if settings.llm.enabled:
            planned = await _ask_review_model(planned, specs, results, state, settings, report)
        repairs = [r for r in planned if r.kind != "drop"]
        dropped = [r.tool for r in planned if r.kind == "drop" and r.tool not in replaced]
        replaced.update(dropped)
        fresh = reserve[: len(dropped)]
        del reserve[: len(fresh)]
        if not repairs and not fresh:
            break
        if fresh:
            logger.info("validate: %s stand in for dropped tools", ", ".join(s.name for s in fresh))
            specs.extend(fresh)
            generate(
                server_dir,
                report.server,
                specs,
                workspace,
                environment,
                max_bytes=settings.result_max_bytes,
            )
        attempts: dict[str, list[Example]] = {}
        packages = [r.package for r in repairs if r.kind == "add_dependency" and r.package]
        if packages:
            state.installed.update(packages)
            try:
                await add_packages(environment, sorted(set(packages)), settings, sandbox)
            except MetaServerError as exc:
                logger.warning("repair: %s", exc)
        for repair in repairs:
            logger.info("repair %s: %s", repair.tool, repair.reason)
            spec = next(s for s in specs if s.name == repair.tool)
            if repair.kind == "longer_timeout":
                state.extended.add(spec.name)
                spec.timeout = (spec.timeout or settings.timeouts.tool_call) * TIMEOUT_FACTOR
            elif repair.kind == "next_example":
                attempts[spec.name] = repair.examples
        touched = {r.tool for r in repairs} | {spec.name for spec in fresh}
        again = await validate(
            server_dir, specs, environment, settings, sandbox, attempts, only=touched
        )
        kinds = {r.tool: r.kind for r in repairs}
        for evidence in again:
            if evidence.status == "passed":
                evidence.repaired = kinds.get(evidence.name)
        results.update({e.name: e for e in again})
        report.rounds += 1
    return [results[spec.name] for spec in specs]


async def _ask_review_model(
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
        revised.append(_from_diagnosis(repair, diagnosis, state))
    return revised


def _from_diagnosis(repair: Repair, diagnosis: Diagnosis, state: RepairState) -> Repair:
    reason = f"review model: {diagnosis.reason or diagnosis.kind}"
    if diagnosis.kind == "new_example" and diagnosis.arguments is not None:
        example = Example(arguments=diagnosis.arguments, origin="llm")
        return Repair(tool=repair.tool, kind="next_example", examples=[example], reason=reason)
    if diagnosis.kind == "longer_timeout" and repair.tool not in state.extended:
        return Repair(tool=repair.tool, kind="longer_timeout", reason=reason)
    if (
        diagnosis.kind == "add_dependency"
        and diagnosis.requirement
        and diagnosis.requirement not in state.installed
    ):
        return Repair(
            tool=repair.tool, kind="add_dependency", package=diagnosis.requirement, reason=reason
        )
    return repair


def _final_statuses(evidence: list[ToolEvidence], published: bool) -> list[ToolEvidence]:
    """Tools that did not pass are left out of a published server: they are 'dropped'."""
    if not published:
        return evidence
    return [
        e if e.status == "passed" else e.model_copy(update={"status": "dropped"}) for e in evidence
    ]


def _dominant_failure(evidence: list[ToolEvidence]) -> FailureType:
    kinds = [e.failure_type for e in evidence if e.failure_type]
    if not kinds:
        return "untoolable_repo"
    return max(set(kinds), key=kinds.count)


def _finish(
    report: ConversionReport,
    timer: _Timer,
    error: MetaServerError | None,
    failure: Failure | None = None,
) -> ConversionReport:
    if error is not None:
        logger.error("conversion failed: %s", error)
        failure = Failure(type=error.failure_type or "env_failure", detail=str(error))
    if failure is not None:
        report.status = "failed"
        report.failure = failure
    report.seconds["total"] = round(time.monotonic() - timer.started, 2)
    return report


def _trim_stores(settings: Settings) -> None:
    entries = EnvironmentCache(settings.environment_store).entries()
    entries += WorkspaceCache(settings.workspace_store).entries()
    enforce_budget(entries, settings.store_max_mb * 1_000_000)


def _discard_conversion(settings: Settings, server: str, token: str) -> None:
    """Delete everything conversion ``token`` made (none of it is registered yet)."""
    staged = settings.staging_dir / f"fetch-{token}"
    for path in (staged, staged.with_name(staged.name + OWNER_SUFFIX)):
        remove_tree(path)
    if server:
        discard_conversion(settings, server, token)
    logger.info("conversion %s was cancelled; its files are removed", server or token)


def _settle(workspace: Workspace, destination: Path) -> Workspace:
    """Move a fetched tree from staging to its final place."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    workspace.path.rename(destination)
    return workspace.model_copy(update={"path": destination})


@contextmanager
def _cleanup_on_user_error(settings: Settings) -> Iterator[None]:
    """A rejected source leaves the home as it found it (no new directories)."""
    existed = {p for p in (settings.home, settings.staging_dir) if p.exists()}
    try:
        yield
    except UserError:
        for path in (settings.staging_dir, settings.home):
            if path not in existed and path.exists():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists() and path == settings.staging_dir and not any(path.iterdir()):
                path.rmdir()
        raise
