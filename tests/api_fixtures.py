"""Fixture repositories for the main API (issue 27): a package whose README has no code,
whose tests call its functions with asserted values, with internal helpers that have
doctests of their own and a loader copied into sibling modules; and one whose README calls
a method that another class of the package also has.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from fixture_repos import git

PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
description = "metaserver test fixture"
requires-python = ">=3.9"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools.packages.find]
include = ["{package}*"]
"""

README = """\
# textkit

Text statistics for corpus linguists. See the test suite for what it does.
"""

INIT = '''\
"""textkit: small text statistics."""

from textkit.tokens import edit_distance, ngrams, overlap, stem
'''

TOKENS = '''\
"""Tokens, n-grams and distances."""


def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance between two strings."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def ngrams(words: list, n: int) -> list:
    """The n-grams of a sequence of words, as tuples."""
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def overlap(a: str, b: str) -> float:
    """The share of the two strings' letters that both contain (Jaccard)."""
    left, right = set(a), set(b)
    return len(left & right) / len(left | right)


def mean_length(words: list) -> float:
    """The mean number of letters per word."""
    return sum(len(w) for w in words) / len(words)


def stem(word: str) -> str:
    """The word without a trailing plural s."""
    return word[:-1] if word.endswith("s") else word
'''

# Internal helpers with doctests that prove them: before, they outranked the tested API.
UTILS = '''\
"""Internal helpers."""


def sanitize_csv(text: str) -> str:
    """Quote a cell a spreadsheet would read as a formula.

    >>> sanitize_csv("=1+2")
    "'=1+2"
    """
    return "'" + text if text[:1] in "=+-@" else text
'''

COMPAT = '''\
"""Compatibility shims."""


def safe_regex(pattern: str) -> str:
    """A pattern with its special characters escaped.

    >>> safe_regex("a.b")
    'a\\\\.b'
    """
    import re

    return re.escape(pattern)
'''

LOADER = '''\
"""The {name} word list."""


def load() -> list:
    """Load the {name} word list."""
    return ["{name}", "words"]
'''

TESTS = """\
import unittest

import pytest

from textkit import tokens

WORDS = ["a", "bb", "ccc"]


def test_edit_distance():
    assert tokens.edit_distance("kitten", "sitting") == 3


def test_edit_distance_again():
    assert tokens.edit_distance("flaw", "lawn") == 2


def test_ngrams():
    words = ["to", "be", "or"]
    assert tokens.ngrams(words, 2) == [("to", "be"), ("be", "or")]


def test_overlap():
    assert tokens.overlap("abc", "bcd") == pytest.approx(0.5)


class MeanLength(unittest.TestCase):
    def test_mean(self):
        self.assertAlmostEqual(tokens.mean_length(WORDS), 2.0)
"""


def make_untold_repo(root: Path) -> Path:
    """``textkit``: a README without code; tests that call ``tokens.f(...)`` and assert the
    values; ``utils``/``compat`` helpers proven by doctests; a ``load`` in four sibling
    modules."""
    files = {
        "pyproject.toml": PYPROJECT.format(name="textkit", package="textkit"),
        "README.md": README,
        "textkit/__init__.py": INIT,
        "textkit/tokens.py": TOKENS,
        "textkit/utils.py": UTILS,
        "textkit/compat.py": COMPAT,
        "textkit/datasets/__init__.py": '"""Word lists."""\n',
        "tests/test_tokens.py": TESTS,
    }
    for name in ("alpha", "beta", "gamma", "delta"):
        files[f"textkit/datasets/{name}/__init__.py"] = ""
        files[f"textkit/datasets/{name}/data.py"] = LOADER.format(name=name)
    root.mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text) if relative.endswith(".md") else text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


TALLY_README = """\
# tallykit

```python
from tallykit import make_tally
t = make_tally([1, 2, 3])
t.total()
t.mean()
```
"""

TALLY_INIT = '''\
"""Tallies and ledgers."""

__all__ = ["Ledger", "Tally", "make_tally"]


class Tally:
    """Numbers to sum."""

    def __init__(self, values: list):
        self.values = list(values)

    def total(self) -> float:
        """The sum of the values.

        .. deprecated:: 2.0
        """
        return float(sum(self.values))

    def mean(self) -> float:
        """The mean of the values."""
        return sum(self.values) / len(self.values)


class Ledger:
    """Amounts booked in order."""

    def __init__(self, amounts: list):
        self.amounts = list(amounts)

    def total(self) -> float:
        """What the ledger adds up to."""
        return float(sum(self.amounts))


def make_tally(values: list) -> Tally:
    """A tally of the values."""
    return Tally(values)
'''


def make_tally_repo(root: Path) -> Path:
    """``tallykit``: the README calls ``total`` and ``mean`` on what ``make_tally`` returns;
    ``Tally.total`` is deprecated (no tool), and ``Ledger`` has a ``total`` of its own."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "pyproject.toml": PYPROJECT.format(name="tallykit", package="tallykit"),
        "README.md": TALLY_README,
        "tallykit/__init__.py": TALLY_INIT,
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root
