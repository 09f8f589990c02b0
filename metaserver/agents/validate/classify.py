"""Review stage: classify why a tool failed, in the contract's taxonomy.

The repair catalogue (its own issue) builds on this classification; an LLM review may refine
it when a model is configured.
"""

from __future__ import annotations

import re

from metaserver.exceptions import FailureType

_RULES: list[tuple[re.Pattern[str], FailureType]] = [
    (re.compile(r"ModuleNotFoundError|ImportError|No module named"), "import_error"),
    (re.compile(r"timed out|TimeoutError|Timeout"), "timeout"),
    (
        re.compile(
            r"validation error|TypeError|unexpected keyword|missing \d+ required|"
            r"Input should be|AttributeError: 'dict'|not iterable|unknown or expired handle|"
            r"exited with code 2: usage:|"  # argparse refused a script tool's command line
            # The generated server's codecs could not build an argument (runtime/decode.py):
            # our reading of the parameter's type, whatever the example.
            r"cannot decode .* as [a-z]+(?::|\b)|expected a handle \(|unknown codec '|"
            r"has no instance attribute '|is built from an object of its fields|"
            r"the codec's type \S+ does not import"
        ),
        "api_inference_error",
    ),
]


def classify(error: str) -> FailureType:
    """The failure type a tool's error text points to."""
    for pattern, failure in _RULES:
        if pattern.search(error):
            return failure
    return "repo_internal_bug"
