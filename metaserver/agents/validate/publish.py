"""The server as published: rendered with only its proven tools, checked once more through
the protocol, and its own generated tests replayed in a fresh server."""

from __future__ import annotations

import asyncio
import logging

from metaserver.agents.conversion import Draft
from metaserver.agents.validate.calls import check_protocol
from metaserver.agents.validate.selftest import (
    SELFTEST_PASSES,
    failed_tool_reasons,
    run_generated_tests,
)
from metaserver.contracts import MIN_TOOLS_PASSED, ToolEvidence, ToolSpec
from metaserver.exceptions import SandboxTimeout, ValidationError
from metaserver.sandbox import RunResult

logger = logging.getLogger(__name__)


async def publish(
    draft: Draft, passed: list[ToolSpec], evidence: list[ToolEvidence]
) -> tuple[list[ToolSpec], list[ToolEvidence]]:
    """Render the server with only its proven tools, and check it still answers; the tools
    kept, and every tool's evidence (a tool its own tests could not replay, failed, with the
    reason its test gave).

    A tool proven during validation may depend on state calls leave in the library (a name
    registered once per process), or its replay may fail where its validation did not: each
    such tool is left out, and the rest checked again (up to ``SELFTEST_PASSES`` times).
    Under ``MIN_TOOLS_PASSED`` tools left, the checks stop: the conversion then fails by
    its count of passed tools, not as a server that broke the protocol.

    Raises:
        ValidationError: the server's own tests failed for no tool's replay, or still fail.
        SandboxTimeout: they ran out of time (``selftest_timeout``).
    """
    left_out: dict[str, str] = {}
    kept = list(passed)
    why = ""
    for _ in range(SELFTEST_PASSES):
        replay = await _check_published(draft, kept, evidence)
        if replay is None or replay.ok:
            break
        why = _why(replay)
        if replay.timed_out:  # a time limit, not a server that broke the protocol
            raise SandboxTimeout(f"the generated server's own tests failed: {why}")
        names = {s.name for s in kept}
        failed = {n: r for n, r in failed_tool_reasons(replay.stdout).items() if n in names}
        if not failed:
            raise ValidationError(f"the generated server's own tests failed: {why}")
        logger.warning("not replayed by the server's own tests, left out: %s", sorted(failed))
        left_out.update(failed)
        kept = [s for s in kept if s.name not in failed]
        if len(kept) < MIN_TOOLS_PASSED:
            break
    else:
        raise ValidationError(f"the generated server's own tests still failed: {why}")
    return kept, [_unreproduced(e, left_out[e.name]) if e.name in left_out else e for e in evidence]


async def _check_published(
    draft: Draft, passed: list[ToolSpec], evidence: list[ToolEvidence]
) -> RunResult | None:
    """Render ``passed``, check the protocol, and replay the server's own tests (None when
    they are not run)."""
    settings, sandbox = draft.settings, draft.sandbox
    draft.render(passed, evidence)
    protocol = check_protocol(draft.server_dir, passed, draft.environment, settings, sandbox)
    if not (settings.run_generated_tests and len(passed) >= MIN_TOOLS_PASSED):
        await protocol
        return None
    # Both only read the rendered directory; together they take the time of the longer.
    replaying = run_generated_tests(
        draft.server_dir, draft.environment, settings, sandbox, len(passed)
    )
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(protocol)
            replay = group.create_task(replaying)
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    return replay.result()


def _why(replay: RunResult) -> str:
    return "timed out" if replay.timed_out else replay.tail(5)


def _unreproduced(evidence: ToolEvidence, reason: str) -> ToolEvidence:
    """A tool validation proved whose replay in the server's own tests failed, and why."""
    why = reason or "its test gave no reason"
    return evidence.model_copy(
        update={
            "status": "failed",
            "error": "passed validation, but the server's own tests (every tool's "
            "validated call, replayed in one new server) could not replay it "
            f"(most often: it depends on state other calls leave in the library): {why}",
            "failure_type": "api_inference_error",
        }
    )
