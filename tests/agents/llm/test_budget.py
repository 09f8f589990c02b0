"""budget: the longest prefix of a ranked list whose prompt fits the context."""

from __future__ import annotations

from metaserver.agents.llm.budget import batch_size, fitted_doc, longest_fitting
from metaserver.models import ContextBudget, Message


def prompt_of(count: int) -> list[Message]:
    return [Message(role="user", content="candidate line\n" * count)]


def test_the_longest_prefix_that_fits_is_found() -> None:
    budget = ContextBudget(prompt_tokens=500, answer_tokens=256)
    count = longest_fitting(prompt_of, 1000, budget)
    assert 0 < count < 1000
    assert len(prompt_of(count)[0].content) // 3 <= 500
    assert len(prompt_of(count + 1)[0].content) // 3 + 9 > 500


def test_an_unknown_context_keeps_everything_and_none_fits_gives_zero() -> None:
    assert longest_fitting(prompt_of, 1000, ContextBudget(None, 2048)) == 1000
    assert longest_fitting(lambda n: prompt_of(n + 10_000), 5, ContextBudget(100, 64)) == 0


def test_batches_shrink_with_the_answer_room_and_docs_with_the_prompt_room() -> None:
    assert batch_size(12, ContextBudget(None, 2048), 160) == 12
    assert batch_size(12, ContextBudget(1000, 480), 160) == 3
    assert batch_size(12, ContextBudget(10, 16), 160) == 1
    doc = fitted_doc(
        lambda chars: [Message(role="user", content="d" * chars)], 1500, ContextBudget(300, 64)
    )
    assert doc in (750, 375, 150, 0)
