"""The meta-tool that converts a repository: ``convert_repo``, inline or as an MCP task."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from pydantic import Field

from metaserver.exceptions import MetaServerError, NotFoundError, UserError
from metaserver.server.state import MetaState

logger = logging.getLogger(__name__)


def add_conversion_tools(mcp: FastMCP[Any], state: MetaState, as_task: TaskConfig | None) -> None:
    """Register ``convert_repo`` on ``mcp`` (task-capable when ``as_task`` is given)."""
    settings, registry = state.settings, state.registry

    @mcp.tool(task=as_task or False)
    async def convert_repo(
        source: Annotated[str, Field(description="git URL, local directory, or pypi:NAME")],
        ctx: Context,
        ref: Annotated[str | None, Field(description="git branch, tag or commit")] = None,
        max_tools: Annotated[int | None, Field(ge=1, le=200)] = None,
    ) -> dict[str, Any]:
        """Convert a repository into a validated MCP server, register it and mount its tools.

        Returns the conversion report; progress is reported at each stage. Clients that
        support MCP tasks get a task to poll or cancel.
        """
        from metaserver.pipeline import convert  # lazily: the pipeline is heavy

        async def progress(message: str, done: float, total: float) -> None:
            await ctx.report_progress(done, total, message)

        async with state.conversions:
            try:
                report = await convert(
                    source, settings=settings, ref=ref, max_tools=max_tools, progress=progress
                )
            except UserError as exc:
                raise state.fail(str(exc)) from exc
            except MetaServerError as exc:
                raise state.fail(f"conversion failed: {exc}") from exc
            except Exception as exc:
                # As a task, the call bypasses the middleware that scrubs errors: say it here.
                logger.exception("conversion of %s failed unexpectedly", source)
                raise state.fail(f"conversion failed: internal error: {exc}") from exc
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
            await state.notifier.notify(ctx)
        return report.model_dump(mode="json")
