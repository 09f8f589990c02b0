"""One conversion: the stages of docs/ARCHITECTURE.md in order, timed, with the report as the
result.

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
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import get_args

from metaserver.agents.analysis import analyse, readme_coverage
from metaserver.agents.conversion import Conversion, Draft
from metaserver.agents.design import design_tools
from metaserver.agents.environment import build_environment
from metaserver.agents.fetch import Paper, discard_staged, fetch_first, source_candidates
from metaserver.agents.llm import refine_specs
from metaserver.agents.llm.allowance import allowance
from metaserver.agents.register import register
from metaserver.agents.repair import probe_installer, validate_and_repair
from metaserver.agents.stores import trim_stores
from metaserver.agents.validate import notebook_seconds, publish, tutorial_summary
from metaserver.agents.validate.tutorial_budget import OVER_BUDGET, over_budget
from metaserver.bundle.use import first_bundled, use_bundle
from metaserver.contracts import (
    MIN_TOOLS_PASSED,
    CheckKind,
    ConversionReport,
    Environment,
    EnvironmentSummary,
    Failure,
    LLMUsage,
    SkippedCallable,
    Source,
    ToolEvidence,
    Workspace,
    check_server_name,
)
from metaserver.exceptions import (
    EnvironmentBuildError,
    FailureType,
    MetaServerError,
    NameTakenError,
    NotFoundError,
    UserError,
)
from metaserver.registry import Registry
from metaserver.registry.failed import keep_failed
from metaserver.registry.files import discard_conversion
from metaserver.registry.locks import ConversionLease, conversion_lock
from metaserver.sandbox import Sandbox, get_sandbox
from metaserver.settings import Settings
from metaserver.telemetry.conversion import traced_conversion, traced_stage

logger = logging.getLogger(__name__)

Progress = Callable[[str, float, float], Awaitable[None]]
STAGES = ("fetch", "environment", "analysis", "design", "generate", "validate", "register")


def server_name_for(text: str) -> str:
    """A registry name from a distribution or directory name: lowercase, [a-z0-9_-]."""
    name = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:48]
    return name or "server"


class _Timer:
    def __init__(self, report: ConversionReport, progress: Progress | None) -> None:
        self.report, self.progress = report, progress
        self.started = time.monotonic()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            with traced_stage(name):  # a span and a metric per stage (telemetry/)
                yield
        finally:
            self.report.seconds[name] = round(time.monotonic() - started, 2)

    async def announce(self, name: str) -> None:
        logger.info("conversion: %s", name)
        if self.progress is not None:
            await self.progress(name, float(STAGES.index(name)), float(len(STAGES)))


@traced_conversion
async def convert(
    source: str,
    *,
    settings: Settings,
    ref: str | None = None,
    name: str | None = None,
    max_tools: int | None = None,
    progress: Progress | None = None,
    repo_url: str | None = None,
) -> ConversionReport:
    """Convert ``source`` into a validated, registered MCP server.

    A paper (``.pdf``, ``.md``, ``.txt``) as ``source`` converts the repository it links (the
    first that fetches) or the one ``repo_url`` names, and keeps its text as a resource.

    Raises:
        UserError: the source or a parameter is invalid (a paper that cannot be read or
            links no repository); nothing was left in the home.
    """
    paper, candidates = source_candidates(source, ref, repo_url)
    _check_free_disk(settings)
    if settings.index.bundle is not None:
        # Air-gapped: the source and every distribution come from the bundle, offline (for a
        # paper, the repository it names that the bundle holds, and only that one).
        if paper is not None:
            held = first_bundled(settings.index.bundle, [c.original for c in candidates])
            candidates = [c for c in candidates if c.original == held]
        settings = use_bundle(
            settings, settings.index.bundle, source if paper is None else candidates[0].original
        )
    if name is not None:
        check_server_name(name)
        _refuse_an_added_name(settings, name)
    sandbox = get_sandbox(settings.sandbox)
    token = secrets.token_hex(4)
    report = ConversionReport(
        server=name or "", source=source, llm=LLMUsage(model=settings.llm.model)
    )
    timer = _Timer(report, progress)
    try:
        return await _fetch_and_convert(
            candidates, report, timer, settings, sandbox, token, name, max_tools, paper
        )
    except asyncio.CancelledError:
        # A stopped conversion (tasks/cancel, a client gone) leaves nothing behind: its
        # processes were killed on the way out, its directories go here, in a thread (an
        # environment is thousands of files) that a second cancellation does not interrupt.
        await asyncio.shield(asyncio.to_thread(_discard_conversion, settings, report.server, token))
        raise


async def _fetch_and_convert(
    candidates: list[Source],
    report: ConversionReport,
    timer: _Timer,
    settings: Settings,
    sandbox: Sandbox,
    token: str,
    name: str | None,
    max_tools: int | None,
    paper: Paper | None = None,
) -> ConversionReport:
    await timer.announce("fetch")
    with timer.stage("fetch"), _cleanup_on_user_error(settings):
        fetched = await fetch_first(candidates, settings, token)
    if isinstance(fetched, MetaServerError):
        return _finish(report, timer, fetched)
    parsed, workspace = fetched
    if paper is not None:
        report.repository = parsed.original
    report.server = name or server_name_for(workspace.distribution or Path(parsed.location).name)
    if name is None:
        try:
            _refuse_an_added_name(settings, report.server)
        except NameTakenError:
            discard_staged(workspace.path)
            raise
    # One conversion of a server at a time across every process of the home: a second one
    # waits here (its fetch is in staging, which is its own), then converts in its turn.
    async with conversion_lock(settings, report.server) as waited:
        if waited:
            logger.info("waited for another conversion of %s to end", report.server)
        lease = ConversionLease(settings, token)
        try:
            return await _convert_settled(
                report, timer, settings, sandbox, token, max_tools, paper, workspace
            )
        finally:
            lease.release()


async def _convert_settled(
    report: ConversionReport,
    timer: _Timer,
    settings: Settings,
    sandbox: Sandbox,
    token: str,
    max_tools: int | None,
    paper: Paper | None,
    workspace: Workspace,
) -> ConversionReport:
    report.commit = workspace.commit
    workspace = _settle(workspace, settings.workspaces_dir / f"{report.server}-{token}")
    conversion = Conversion(
        settings=settings,
        sandbox=sandbox,
        report=report,
        workspace=workspace,
        token=token,
        max_tools=max_tools or settings.max_tools,
        paper=paper.text if paper is not None else None,
        documented_cap=settings.documented_cap(max_tools),
    )
    try:
        report = await _convert_workspace(conversion, timer)
    except MetaServerError as exc:
        report = _finish(report, timer, exc)
    if report.status == "failed":
        # Nothing of it is used again: its workspace, environment and scratch go now; its
        # report and generated server stay, the newest few (registry/failed.py).
        await asyncio.shield(asyncio.to_thread(keep_failed, settings, report, token))
    return report


async def _convert_workspace(conversion: Conversion, timer: _Timer) -> ConversionReport:
    settings, report, workspace = conversion.settings, conversion.report, conversion.workspace
    report.output_dir = str(conversion.server_dir)

    await timer.announce("environment")
    with timer.stage("environment"):
        draft = Draft(conversion, await _build_environment(conversion))

    # The stores just grew (or were used): keep them within their disk budget.
    await asyncio.to_thread(trim_stores, settings)

    await timer.announce("analysis")
    with timer.stage("analysis"):
        code, usage = await analyse(
            workspace, draft.environment, settings, conversion.sandbox, probe_installer(draft)
        )
        report.notebooks_skipped = [s for s in code.skipped if _is_tutorial(s.target)]
        report.analysis_unread = code.unread

    await timer.announce("design")
    with timer.stage("design"):
        designed = design_tools(code, usage, conversion.max_tools, conversion.documented_cap)
        conversion.max_tools, specs = designed.max_tools, designed.tools
    # Optional, bounded by settings.llm.budget_seconds and by the time the conversion took so
    # far (agents/llm/allowance.py: the model never makes a conversion much slower); whatever
    # the model does, the worst result is the design above. Its usage goes into report.llm.
    if settings.llm.enabled:
        # The stages' own time, not a wait for another conversion's lock.
        spent = sum(report.seconds.get(stage, 0.0) for stage in STAGES[: STAGES.index("generate")])
        report.llm.allowance_seconds = allowance(settings.llm, spent)
        with timer.stage("llm"):
            specs = await refine_specs(
                code,
                specs,
                max_tools=conversion.max_tools,
                settings=settings.llm,
                usage=report.llm,
                mined=usage,
                # The model's picks stand in for tools that fail, never displace one that
                # passes: "never worse" (issue 32).
                reserve=designed.reserve,
            )
    logger.info("analysis: %d candidates, %d tools designed", len(code.candidates), len(specs))
    # A tutorial chosen at analysis that design left out is listed as skipped too.
    designed_targets = {spec.target for spec in specs}
    report.notebooks_skipped += [
        SkippedCallable(
            target=c.target,
            reason=f"beyond the tutorials' share of the {conversion.max_tools} tools",
        )
        for c in code.candidates
        if c.kind == "notebook" and c.target not in designed_targets
    ]

    await timer.announce("generate")
    with timer.stage("generate"):
        draft.render(specs)

    await timer.announce("validate")
    with timer.stage("validate"):
        evidence = await validate_and_repair(draft, specs, designed.reserve)
        report.seconds.update(notebook_seconds(evidence))
        # A tutorial the time budget left unrun is skipped, as one analysis could not use.
        report.notebooks_skipped += [
            SkippedCallable(target=e.target, reason=e.error or OVER_BUDGET)
            for e in evidence
            if over_budget(e)
        ]
        passed = [s for s, e in zip(specs, evidence, strict=True) if e.status == "passed"]
        report.tools = _final_statuses(evidence, published=len(passed) >= MIN_TOOLS_PASSED)
        report.tools_passed = len(passed)
        needing = [e.target for e in evidence if e.program]  # an uninstalled program
        report.coverage = readme_coverage(usage, passed, code.candidates, needing)
        if passed:
            kept, evidence = await publish(draft, passed, evidence)
            if len(kept) < len(passed):  # proven once, not again by the server's tests: left out
                passed = kept
                report.tools = _final_statuses(evidence, published=len(kept) >= MIN_TOOLS_PASSED)
                report.tools_passed = len(passed)
                report.coverage = readme_coverage(usage, passed, code.candidates, needing)
        report.tutorials = tutorial_summary(code.candidates, report.notebooks_skipped, report.tools)
        report.passed_by_check = passed_by_check(report.tools)

    if report.tools_passed < MIN_TOOLS_PASSED:
        shutil.rmtree(conversion.venv, ignore_errors=True)
        return _finish(
            report,
            timer,
            None,
            Failure(
                type=dominant_failure(evidence),
                detail=f"{report.tools_passed} tools passed validation; at least "
                f"{MIN_TOOLS_PASSED} are needed",
            ),
        )

    await timer.announce("register")
    with timer.stage("register"):
        report.status = "success"
        report.seconds["total"] = round(time.monotonic() - timer.started, 2)
        # A new version (the old ones stay callable); report.changes says what changed.
        register(
            settings, report, workspace, draft.environment, conversion.server_dir, passed, evidence
        )
    return _finish(report, timer, None)


def _is_tutorial(target: str) -> bool:
    """A notebook, or an example script (always in a folder: a command-line script's
    skipped entry is named by its program, a top-level file)."""
    return target.endswith(".ipynb") or (target.endswith(".py") and "/" in target)


async def _build_environment(conversion: Conversion) -> Environment:
    """The environment stage, its outcome (and every strategy tried) in the report."""
    report = conversion.report
    try:
        environment = await build_environment(
            conversion.workspace, conversion.venv, conversion.settings, conversion.sandbox
        )
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
        extras=environment.extras,
    )
    return environment


def _final_statuses(evidence: list[ToolEvidence], published: bool) -> list[ToolEvidence]:
    """Tools that did not pass are left out of a published server: they are 'dropped'."""
    if not published:
        return evidence
    return [
        e if e.status == "passed" else e.model_copy(update={"status": "dropped"}) for e in evidence
    ]


def passed_by_check(tools: list[ToolEvidence]) -> dict[str, int]:
    """How many passed tools each check proved, the strongest first (an expected value,
    then outputs, then a run that merely finished)."""
    counts = Counter(t.evidence.check for t in tools if t.status == "passed" and t.evidence)
    return {check: counts[check] for check in _CHECKS_STRONGEST_FIRST if counts[check]}


_CHECKS_STRONGEST_FIRST: tuple[CheckKind, ...] = (
    "expected-value",
    "notebook-outputs",
    "notebook-run",
    "no-error",
)


def dominant_failure(evidence: list[ToolEvidence]) -> FailureType:
    """The cause most of the failed tools share (not the last one seen); on a tie, ours
    (any other type) before the repository's, and then the first in the contract's order."""
    kinds = [e.failure_type for e in evidence if e.failure_type]
    if not kinds:
        return "untoolable_repo"
    order = list(get_args(FailureType))
    return max(
        sorted(set(kinds), key=order.index),
        key=lambda kind: (kinds.count(kind), kind != "repo_internal_bug"),
    )


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


def _refuse_an_added_name(settings: Settings, name: str) -> None:
    """A conversion may not become a version of a server that ``metaserver add`` registered.

    Its newest version would replace the added server's command in every call, silently.

    Raises:
        NameTakenError: ``name`` is an added server's.
    """
    try:
        existing = Registry(settings.registry_path).get(name)
    except NotFoundError:
        return
    if existing.kind == "added":
        raise NameTakenError(
            f"{name!r} is a server added with `metaserver add`; convert under another name "
            "(--name) or remove it first (`metaserver remove`)"
        )


def _check_free_disk(settings: Settings) -> None:
    """Refuse to start a conversion the disk cannot hold (before anything is written).

    Raises:
        UserError: less than ``settings.min_free_mb`` is free where the home lives.
    """
    probe = settings.home
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free_mb = shutil.disk_usage(probe).free // 1_000_000
    if free_mb < settings.min_free_mb:
        short = settings.min_free_mb - free_mb
        raise UserError(
            f"only {free_mb} MB free on the disk of METASERVER_HOME; a conversion needs at "
            f"least {settings.min_free_mb} MB (METASERVER_MIN_FREE_MB), {short} MB more: "
            "remove servers (metaserver remove), lower METASERVER_STORE_MAX_MB, or free space"
        )


def _discard_conversion(settings: Settings, server: str, token: str) -> None:
    """Delete everything conversion ``token`` made (none of it is registered yet)."""
    discard_staged(settings.staging_dir / f"fetch-{token}")
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
