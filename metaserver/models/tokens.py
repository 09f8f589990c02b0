"""A prompt's size in tokens, estimated without the model's tokenizer.

The servers metaserver talks to do not share a tokenizer with it (and fetching one is not
possible offline), so prompts are measured by characters: about three characters a token
for the code, JSON and English the agents send, which over-counts the four of plain English
and so errs on the side of a prompt that fits. A few tokens per message cover the chat
template's markers.
"""

from __future__ import annotations

from collections.abc import Sequence

from metaserver.models.base import Message

CHARS_PER_TOKEN = 3
TOKENS_PER_MESSAGE = 8


def estimate_tokens(messages: Sequence[Message]) -> int:
    """Tokens ``messages`` take, over-estimated rather than under."""
    chars = sum(len(m.content) for m in messages)
    return chars // CHARS_PER_TOKEN + TOKENS_PER_MESSAGE * len(messages) + 1
