"""The server as published: rendered with only its proven tools, checked once more through
the protocol, and its own generated tests replayed in a fresh server."""

from __future__ import annotations

import asyncio
import logging

from metaserver.agents.conversion import Draft
from metaserver.agents.validate.calls import check_protocol
from metaserver.agents.validate.selftest import failed_tool_tests, run_generated_tests
from metaserver.contracts import MIN_TOOLS_PASSED, ToolEvidence, ToolSpec
from metaserver.exceptions import SandboxTimeout, ValidationError
from metaserver.sandbox import RunResult

logger = logging.getLogger(__name__)


async def publish(
    draft: Draft, passed: list[ToolSpec], evidence: list[ToolEvidence]
) -> tuple[list[ToolSpec], list[ToolEvidence]]:
    """Render the server with only its proven tools, and check it still answers; the tools
    kept, and every tool's evidence (a tool its own tests could not replay, failed).

    A tool proven during validation may depend on state calls leave in the library (a name
    registered once per process): replayed with every other tool's call in the one new
    server the tests start, it fails. Those tools, and only those, are left out and the
    rest checked again; a second failure fails the conversion.

    Raises:
        ValidationError: the server's own replayed tests failed for other reasons, or again.
        SandboxTimeout: they ran out of time (``selftest_timeout``).
    """
    replay = await _check_published(draft, passed, evidence)
    if replay is None or replay.ok:
        return passed, evidence
    if replay.timed_out:  # a time limit, not a server that broke the protocol
        raise SandboxTimeout(f"the generated server's own tests failed: {_why(replay)}")
    failed = failed_tool_tests(replay.stdout)
    kept = [s for s in passed if s.name not in failed]
    if not failed or len(kept) == len(passed) or len(kept) < MIN_TOOLS_PASSED:
        raise ValidationError(f"the generated server's own tests failed: {_why(replay)}")
    left_out = ", ".join(sorted(failed))
    logger.warning("not replayed by the server's own tests, left out: %s", left_out)
    again = await _check_published(draft, kept, evidence)
    if again is not None and again.timed_out:
        raise SandboxTimeout(f"the generated server's own tests failed: {_why(again)}")
    if again is not None and not again.ok:
        raise ValidationError(f"the generated server's own tests failed: {_why(again)}")
    return kept, [_unreproduced(e) if e.name in failed else e for e in evidence]


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


def _unreproduced(evidence: ToolEvidence) -> ToolEvidence:
    return evidence.model_copy(
        update={
            "status": "failed",
            "error": "passed validation, but the server's own tests (every tool's "
            "validated call, replayed in one new server) could not replay it: it depends "
            "on state other calls leave in the library",
            "failure_type": "api_inference_error",
        }
    )
