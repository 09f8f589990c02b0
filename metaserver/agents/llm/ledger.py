"""What the model cost and gave in one conversion, written into the report as it happens.

Every agent asks through :meth:`Ledger.ask`, which is where "a model that is down, slow or
answers nonsense never fails a conversion" is enforced: a :class:`ModelError` becomes
``None`` plus a count, and after ``max_failures`` failed calls the ledger stops asking, so a
dead server costs one timeout per stage at most, not one per tool. With a ``deadline`` (the
conversion's model time, ``allowance.py``) it sends nothing once that has passed, and the
model client fits each request to the time left or does not send it: either way the request
is counted in ``skipped`` by its answer's kind, not as a failure.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from metaserver.contracts import JSON, LLMUsage
from metaserver.models import (
    ContextBudget,
    Message,
    Model,
    ModelError,
    ModelSkipped,
    OutputSchema,
)

logger = logging.getLogger(__name__)
MAX_ERRORS_KEPT = 5


class Ledger:
    """Counts calls, tokens, failures and contributions into ``usage`` (the report's).

    Args:
        usage: the report's :class:`LLMUsage`, updated in place.
        max_failures: failed calls after which :meth:`ask` stops calling the model.
        deadline: when (``time.monotonic()``) every answer must have arrived; None: no bound
            here (the caller's timeout is).
    """

    def __init__(
        self, usage: LLMUsage, max_failures: int = 3, deadline: float | None = None
    ) -> None:
        self.usage = usage
        self.max_failures = max_failures
        self.deadline = deadline

    @property
    def gave_up(self) -> bool:
        return self.usage.failed_calls >= self.max_failures

    async def ask(
        self, model: Model, messages: Sequence[Message], output: OutputSchema
    ) -> dict[str, JSON] | None:
        """The model's JSON answer, or ``None`` when it gave none (the failure is counted)."""
        if self.gave_up:
            return None
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.skipped(output.name, "no model time left")
            return None
        try:
            data, response = await model.request_json(messages, output, self.deadline)
        except asyncio.CancelledError:  # the stage's time budget ran out mid-call
            self.usage.calls += 1
            self.usage.failed_calls += 1
            raise
        except ModelSkipped as exc:
            self.skipped(output.name, str(exc))
            return None
        except ModelError as exc:
            self.usage.calls += 1
            self.usage.failed_calls += 1
            self.usage.tokens_in += exc.tokens_in
            self.usage.tokens_out += exc.tokens_out
            self._note(f"{output.name}: {exc}")
            return None
        finally:
            self.observe(model)
        self.usage.calls += 1
        self.usage.tokens_in += response.tokens_in
        self.usage.tokens_out += response.tokens_out
        self.usage.cut_to_time += int(response.cut_to_time)
        return data

    def skipped(self, kind: str, why: str) -> None:
        """Record a request of ``kind`` not sent for want of time (not a failure)."""
        self.usage.skipped[kind] = self.usage.skipped.get(kind, 0) + 1
        logger.info("llm: %s request skipped: %s", kind, why)

    def unfit(self, kind: str, what: str, budget: ContextBudget) -> None:
        """``what`` (a request of ``kind``) fits no prompt room: skipped for want of time
        where the time left bounded the room, else a failure to fit the context."""
        if budget.by_time:
            self.skipped(kind, f"{what} does not fit the prompt the time left can read")
        else:
            self.failed(f"{what} does not fit the model's context")

    def observe(self, model: Model) -> None:
        """Note the server's speed as measured so far (``tokens_per_second``)."""
        speed = model.speed()
        if speed is None:
            return
        rates = {"prompt": speed.prompt_per_second, "generated": speed.generated_per_second}
        self.usage.tokens_per_second = {k: round(v, 1) for k, v in rates.items() if v}

    def contributed(self, kind: str, count: int = 1) -> None:
        """Record ``count`` accepted proposals of ``kind`` (selected, renamed, ...)."""
        if count:
            self.usage.contributed[kind] = self.usage.contributed.get(kind, 0) + count

    def rejected(self, what: str, count: int = 1, why: str = "invalid") -> None:
        """Record proposals that failed validation, by ``why`` (the report's ``rejections``
        keys); the deterministic value stays."""
        if count:
            self.usage.rejected += count
            self.usage.rejections[why] = self.usage.rejections.get(why, 0) + count
            logger.info("llm: rejected %d proposal(s) (%s): %s", count, why, what)

    def failed(self, what: str) -> None:
        """Record a failure that was not a call (the stage's time budget ran out)."""
        self._note(what)

    def _note(self, line: str) -> None:
        logger.warning("llm: %s", line)
        line = line.splitlines()[0][:300] if line else line
        if line not in self.usage.errors and len(self.usage.errors) < MAX_ERRORS_KEPT:
            self.usage.errors.append(line)
