"""Checks a weak model's text fails: "never worse" made checkable (issue 32).

A model's description replaces the deterministic one (the docstring's summary) only when it
is not repetitive, not cut off, and grounded in the words of what it describes. A 270M model
was seen to answer one sentence repeated until cut mid-word at the length limit; the schema
check alone (non-empty, at most 1,024 characters) accepted it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")
_TERMINAL = tuple(".!?)]}\"'`")
# Words every description may use; they ground nothing.
_COMMON = frozenset(
    """the and for are its not but all any can has was our you out how why who per via
    about above after again also argument arguments based been being below between both
    call calls called calling compute computes could does each from function functions given
    have into just like make makes many more most much must only other over provided return
    returned returns same should some such than that their them then there these they this
    those through tool tools under used uses using very want what when where which while
    will with within would your""".split()
)
SHINGLE = 4  # words in the runs counted for repetition
MAX_SHINGLE_REPEATS = 2
CUT_SHARE = 0.9  # text this near the limit, with no sentence end, was cut there


def repetitive(text: str) -> bool:
    """A sentence said twice, or a run of words said more than twice."""
    sentences = [" ".join(s.lower().split()) for s in _SENTENCE_END.split(text)]
    sentences = [s for s in sentences if len(s.split()) >= 3]
    if len(sentences) != len(set(sentences)):
        return True
    words = text.lower().split()
    runs = Counter(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))
    return bool(runs) and max(runs.values()) > MAX_SHINGLE_REPEATS


def cut_off(text: str, limit: int) -> bool:
    """Ended by the length limit rather than by the writer: near the limit, or a last
    sentence left open after complete ones."""
    stripped = text.rstrip()
    if not stripped or stripped.endswith(_TERMINAL):
        return False
    return len(stripped) >= limit * CUT_SHARE or len(_SENTENCE_END.split(stripped)) > 1


def grounded(text: str, sources: Iterable[str], names: Iterable[str] = ()) -> bool:
    """Whether ``text`` shares a content word with what it describes (its name, signature,
    docstring), or names one of its parameters (``a`` in "Sum of a and b."); true when the
    sources have no content word to share."""
    if any(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) for name in names):
        return True
    known = {_stem(w) for source in sources for w in _words(source)}
    if not known:
        return True
    return any(_stem(w) in known for w in _words(text))


def _words(text: str) -> list[str]:
    # snake_case and CamelCase names count by their parts ("ufloat_fromstr", "StandardScaler").
    found = (w.lower() for w in _WORD.findall(text.replace("_", " ")))
    return [w for w in found if len(w) >= 3 and w not in _COMMON]


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
