"""The model's part of a conversion: refine the deterministic design, never replace it.

    design(code) ──► select ──► describe ──► add_examples ──► write_requests ──► specs

Each step starts from the previous step's specs and returns them unchanged when the model
fails, answers nonsense, or the conversion's time budget runs out, so the worst a model can
do is cost time (bounded by ``budget_seconds`` and, where the pipeline set one, the
conversion's model allowance: ``allowance.py``) and leave the no-model result.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from metaserver.agents.llm.allowance import deadline, timed
from metaserver.agents.llm.describe import describe
from metaserver.agents.llm.examples import add_examples
from metaserver.agents.llm.ledger import Ledger
from metaserver.agents.llm.requests import write_requests
from metaserver.agents.llm.select import select
from metaserver.agents.repo_docs.usage import Usage
from metaserver.contracts import CodeReport, LLMUsage, ToolSpec
from metaserver.models import Model, ModelConfigError, Stage, model_for
from metaserver.settings import LLMSettings

logger = logging.getLogger(__name__)

Step = Callable[[list[ToolSpec], Model, Ledger], Awaitable[list[ToolSpec]]]


async def refine_specs(
    code: CodeReport,
    specs: list[ToolSpec],
    *,
    max_tools: int,
    settings: LLMSettings,
    usage: LLMUsage,
    mined: Usage | None = None,
    reserve: list[ToolSpec] | None = None,
) -> list[ToolSpec]:
    """``specs`` improved by the configured models; ``specs`` itself without a model.

    Never raises for anything the model does: failures are counted in ``usage``.

    Args:
        code: every candidate the analysis found.
        specs: the deterministic design.
        max_tools: tools at most.
        settings: the LLM settings (models per stage, limits).
        usage: the report's LLM usage, updated in place.
        mined: the repository's usage that ``design`` was given, for the re-design of a
            new selection.
        reserve: the stand-ins for tools validation drops; given, the model's selection
            goes to its front instead of displacing designed tools (``select``).
    """
    if not settings.enabled or not specs:
        return specs
    with timed(usage):
        return await _refine(code, specs, max_tools, settings, usage, mined, reserve)


# The hard stop past the allowance's end: each request already ends by then (its timeout is
# the time left), so this only catches work that does not.
GRACE_SECONDS = 1.0


async def _refine(
    code: CodeReport,
    specs: list[ToolSpec],
    max_tools: int,
    settings: LLMSettings,
    usage: LLMUsage,
    mined: Usage | None,
    reserve: list[ToolSpec] | None,
) -> list[ToolSpec]:
    ends = deadline(usage)
    ledger = Ledger(usage, settings.max_failures, ends)
    # (what the step is called in the report, the stage whose model it uses, the step)
    steps: list[tuple[str, Stage, Step]] = [
        (
            "selection",
            "selection",
            lambda s, m, ledger: select(
                code, s, max_tools, m, ledger, settings.selection_pool, mined, reserve
            ),
        ),
        ("descriptions", "descriptions", lambda s, m, ledger: describe(s, code, m, ledger)),
        ("examples", "examples", lambda s, m, ledger: add_examples(s, code, m, ledger)),
        # Search's example requests: the describing model knows the tools' words best.
        ("requests", "descriptions", lambda s, m, ledger: write_requests(s, code, m, ledger)),
    ]
    loop = asyncio.get_running_loop()
    budget = settings.budget_seconds
    stop = loop.time() + budget
    if ends is not None and ends - time.monotonic() < budget:
        budget = max(ends - time.monotonic(), 0.0)
        stop = loop.time() + budget + GRACE_SECONDS
    for label, stage, step in steps:
        if ledger.gave_up:
            ledger.failed(f"{label}: skipped after {usage.failed_calls} failed calls")
            continue
        try:
            async with asyncio.timeout_at(stop):
                async with model_for(settings, stage) as model:
                    specs = await step(specs, model, ledger)
                    ledger.observe(model)  # measured by a calibration, where nothing was sent
        except TimeoutError:
            ledger.failed(f"{label}: the model's time budget of {budget:.3g} s was spent")
            break
        except ModelConfigError as exc:
            # A configuration mistake must not fail conversions the pipeline can do alone.
            logger.error("llm disabled for this conversion: %s", exc)
            ledger.failed(str(exc))
            break
        except Exception:  # the last guard of "never worse": a bug here keeps the design
            logger.exception("llm %s step failed; keeping the deterministic result", label)
            ledger.failed(f"{label}: internal error (see the log)")
    return specs
