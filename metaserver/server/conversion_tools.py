"""The meta-tools of conversions: ``convert_repo`` (inline or as an MCP task),
``conversion_status`` and ``cancel_conversion``.

A conversion runs as a job of the server (:mod:`metaserver.server.jobs`); ``convert_repo``
follows it, so the conversion outlives a client that gives up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Annotated, Any

from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from pydantic import Field

from metaserver.auth.audit import Outcome
from metaserver.auth.context import current_principal
from metaserver.auth.quotas import QuotaExceeded, check_conversions
from metaserver.contracts import ConversionReport
from metaserver.exceptions import MetaServerError, NotFoundError, UserError
from metaserver.server.jobs import ConversionCancelled, Job
from metaserver.server.public import public_report
from metaserver.server.state import MetaState

logger = logging.getLogger(__name__)


def describe_failure(exc: BaseException) -> str:
    """What a client is told of a conversion that raised ``exc`` (before scrubbing)."""
    if isinstance(exc, UserError | ConversionCancelled):
        return str(exc)
    if isinstance(exc, MetaServerError):
        return f"conversion failed: {exc}"
    return f"conversion failed: internal error: {exc}"


def start_conversion(
    state: MetaState,
    source: str,
    ref: str | None = None,
    max_tools: int | None = None,
    repo_url: str | None = None,
) -> tuple[Job, bool]:
    """Start a conversion job of the server (``convert_repo``, the page), or join the one
    running for the same source.

    Returns:
        The job, and whether this call started it.

    Raises:
        UserError: ``repo_url`` given for a source that is no paper (refused before a job
            starts, as the command line refuses --repo-url).
    """
    # Lazily, as the pipeline: the stages are no part of a meta-server's start (issue 31).
    from metaserver.agents.fetch.candidates import check_repo_url

    check_repo_url(source, ref, repo_url)
    principal = current_principal()
    if state.jobs.joinable(source, ref, repo_url) is None:  # joining starts nothing
        check_conversions(
            principal,
            state.jobs.running_of(principal.name),
            state.settings.auth.conversions_per_principal,
        )
    return state.jobs.start(
        source, ref, lambda job: _audited(state, job, max_tools), repo_url, owner=principal.name
    )


async def _audited(state: MetaState, job: Job, max_tools: int | None) -> ConversionReport:
    """The job run, and one "conversion" row in the audit when it ends (beside the
    convert_repo calls that started or joined it): a conversion outlives its calls, and as
    an MCP task the call returns before it ends."""
    started = time.monotonic()
    outcome: Outcome = "error"
    server, detail = None, None
    try:
        report = await _run(state, job, max_tools)
        outcome = "ok" if report.status == "success" else "error"
        server, detail = report.server, None if outcome == "ok" else "conversion failed"
        return report
    except asyncio.CancelledError:
        detail = "cancelled"
        raise
    except Exception as exc:
        detail = type(exc).__name__
        raise
    finally:
        await asyncio.to_thread(
            state.audit.record,
            job.owner or "local",
            "conversion",
            outcome,
            target=server,
            seconds=time.monotonic() - started,
            arguments={"source": job.source, "ref": job.ref, "repo_url": job.repo_url},
            detail=detail,
        )


async def _run(state: MetaState, job: Job, max_tools: int | None) -> ConversionReport:
    from metaserver.agents.validate.watch import watcher
    from metaserver.pipeline import convert  # lazily: the pipeline is heavy

    settings, registry = state.settings, state.registry
    # Set in the job's own task, whose context no other conversion shares.
    watcher.set(job.calling)
    async with state.conversions:
        report = await convert(
            job.source,
            settings=settings,
            ref=job.ref,
            max_tools=max_tools,
            repo_url=job.repo_url,
            progress=job.progress,
        )
    if report.status == "success":
        # A replaced version's files are gone: its child must not keep serving them. Other
        # versions' children stay; the new version gets a child of its own on first call.
        versions = await asyncio.to_thread(registry.versions, report.server)
        await state.pool.retain(report.server, {v.version_id for v in versions})
        if settings.expose_direct_tools:
            try:
                state.direct.mount(registry.get(report.server))
            except NotFoundError:
                logger.error("converted server %s is not in the registry", report.server)
        await state.notifier.notify()
    return report


def add_conversion_tools(mcp: FastMCP[Any], state: MetaState, as_task: TaskConfig | None) -> None:
    """Register the conversion meta-tools on ``mcp`` (``convert_repo`` task-capable when
    ``as_task`` is given)."""
    settings = state.settings

    @mcp.tool(task=as_task or False)
    async def convert_repo(
        source: Annotated[
            str,
            Field(
                description="git URL, local directory, source archive, pypi:NAME[==V], or a "
                "paper (.pdf, .md, .txt) on the server's machine that links the repository"
            ),
        ],
        ctx: Context,
        ref: Annotated[str | None, Field(description="git branch, tag or commit")] = None,
        max_tools: Annotated[int | None, Field(ge=1, le=200)] = None,
        repo_url: Annotated[
            str | None,
            Field(
                description="only for a paper source: the repository to convert (git URL or "
                "local directory) instead of the links found in the paper"
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Convert a repository into a validated MCP server, register it and mount its tools.

        A paper as ``source`` converts the repository it links (the first that fetches), or
        the one ``repo_url`` names, and serves the paper's text as a resource.
        Returns the conversion report (with its job id); progress is reported at each stage.
        The conversion belongs to the server: if this call is abandoned it still finishes
        (see conversion_status), and a second call for the same source joins it. Clients
        that support MCP tasks get a task to poll or cancel.
        """
        try:
            job, _ = start_conversion(state, source, ref, max_tools, repo_url)
        except UserError as exc:
            raise state.fail(str(exc)) from None
        except QuotaExceeded as exc:
            # Audited here, not by the guard: as an MCP task, this runs after the call.
            await asyncio.to_thread(
                state.audit.record,
                current_principal().name,
                "convert_repo",
                "refused",
                arguments={"source": source, "ref": ref, "repo_url": repo_url},
                detail="quota",
            )
            raise state.fail(str(exc)) from None

        async def progress(done: float, total: float, message: str) -> None:
            await ctx.report_progress(done, total, message)

        try:
            report = await job.follow(progress)
        except asyncio.CancelledError:
            # tasks/cancel asks to stop the conversion; a request that went away does not.
            if ctx.is_background_task:
                await state.jobs.cancel(job)
            raise
        except Exception as exc:
            # As a task, the call bypasses the middleware that scrubs errors: say it here.
            raise state.fail(describe_failure(exc)) from None
        if report.status == "success":
            await state.notifier.tell(ctx)
        # output_dir as $METASERVER_HOME/..., no host path in details or errors.
        return {**public_report(report.model_dump(mode="json"), settings.home), "job": job.id}

    @mcp.tool
    async def conversion_status(
        job_or_source: Annotated[
            str, Field(description="a job id from convert_repo, or the source converted")
        ],
    ) -> dict[str, Any]:
        """Where a conversion stands: state (running, succeeded, failed, cancelled, error),
        stage, the tool being validated when known, elapsed seconds, and the report once
        done. A source names its running conversion, else its most recent one."""
        job = state.jobs.find(job_or_source)
        if job is None:
            raise state.fail(f"no conversion job or source matches {job_or_source!r}")
        answer = job.status(describe_failure)
        if answer["report"] is not None:
            answer["report"] = public_report(answer["report"], settings.home)
        if answer["error"] is not None:
            answer["error"] = str(state.fail(answer["error"]))
        return answer

    @mcp.tool
    async def cancel_conversion(
        job: Annotated[str, Field(description="the job id convert_repo or conversion_status gave")],
    ) -> dict[str, Any]:
        """Stop a running conversion; its files are deleted and nothing is registered. Every
        convert_repo call following it ends with an error."""
        found = state.jobs.find(job)
        if found is None or found.id != job:
            raise state.fail(f"no conversion job {job!r}")
        if not found.running:
            raise state.fail(f"conversion {job} is not running (it ended: {found.state})")
        await state.jobs.cancel(found)
        return {"job": found.id, "source": found.source, "state": found.state}
