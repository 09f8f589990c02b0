"""Prompts fitted to the model's context: the best-ranked part of what an agent would show.

Each agent builds its prompt from a ranked list (candidates, tools, documentation). Where the
server's context is known (``Model.budget``), the longest prefix of that list whose prompt
fits is sent, so a small model sees the best of the candidates instead of refusing them all
with HTTP 400 (issue 32: selection's 8,115 tokens against a 4k context).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from metaserver.models import ContextBudget, Message
from metaserver.models.tokens import estimate_tokens

# Answer tokens one tool's entry takes, about: a name and a description of a few sentences,
# or a few example requests. They bound how many tools one call can answer for.
TOKENS_PER_DESCRIPTION = 160
TOKENS_PER_REQUESTS = 120
# Documentation lengths tried in turn, longest first, before a batch is split.
DOC_STEPS = (1.0, 0.5, 0.25, 0.1, 0.0)


def fits(messages: Sequence[Message], budget: ContextBudget) -> bool:
    """Whether ``messages`` leave the answer its room."""
    return budget.prompt_tokens is None or estimate_tokens(messages) <= budget.prompt_tokens


def longest_fitting(
    build: Callable[[int], list[Message]], total: int, budget: ContextBudget
) -> int:
    """The largest ``n <= total`` whose prompt ``build(n)`` fits (0 when not even one does).

    A prompt grows with ``n``, so a binary search finds it in a few renders.
    """
    if fits(build(total), budget):
        return total
    low, high = 0, total  # build(low) fits (or low == 0), build(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        if fits(build(middle), budget):
            low = middle
        else:
            high = middle
    return low if low == 0 or fits(build(low), budget) else 0


def batch_size(wanted: int, budget: ContextBudget, per_tool: int) -> int:
    """Tools one call answers for: ``wanted``, or fewer where the answer's room is smaller."""
    return max(1, min(wanted, budget.answer_tokens // per_tool))


def fitted_doc(build: Callable[[int], list[Message]], chars: int, budget: ContextBudget) -> int:
    """The longest of the documentation lengths in ``DOC_STEPS`` (times ``chars``) whose prompt
    fits; -1 when none does, even with no documentation."""
    for step in DOC_STEPS:
        length = int(chars * step)
        if fits(build(length), budget):
            return length
    return -1
