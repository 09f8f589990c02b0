"""classify: a tool's error text mapped onto the contract's failure taxonomy."""

from __future__ import annotations

import pytest

from metaserver.agents.validate.classify import classify
from metaserver.exceptions import FailureType


@pytest.mark.parametrize(
    ("error", "failure"),
    [
        ("ModuleNotFoundError: No module named 'scipy'", "import_error"),
        ("Error calling tool 'f': No module named 'yaml'", "import_error"),
        ("ImportError: cannot import name 'x' from 'pkg'", "import_error"),
        ("TimeoutError: ", "timeout"),
        ("McpError: Timeout waiting for the tool", "timeout"),
        ("the call timed out after 30s", "timeout"),
        (
            "1 validation error for call[add]\nb\n  Input should be a valid integer",
            "api_inference_error",
        ),
        ("Input should be a valid integer, unable to parse string", "api_inference_error"),
        ("TypeError: unsupported operand type(s) for +: 'int' and 'str'", "api_inference_error"),
        ("TypeError: f() missing 1 required positional argument: 'x'", "api_inference_error"),
        ("f() got an unexpected keyword argument 'y'", "api_inference_error"),
        ("TypeError: 'int' object is not iterable", "api_inference_error"),
        ("KeyError: unknown or expired handle 'h_1'", "api_inference_error"),
        (
            "Error calling tool 'ordinal': cannot decode 1 as new:inflect:Word: "
            "Word() takes no arguments",
            "api_inference_error",
        ),
        ("expected a handle ({'handle': id}) for pkg:Grid", "api_inference_error"),
        (
            "Error calling tool 'sqrt': the codec's type mpmath.ctx_mp:mpf does not import: "
            "module 'mpmath.ctx_mp' has no attribute 'mpf'",
            "api_inference_error",
        ),
        ("ValueError: math domain error", "repo_internal_bug"),
        ("ZeroDivisionError: division by zero", "repo_internal_bug"),
        ("RuntimeError: something broke inside the library", "repo_internal_bug"),
        ("", "repo_internal_bug"),
    ],
)
def test_classify(error: str, failure: FailureType) -> None:
    assert classify(error) == failure


def test_import_error_outranks_a_later_type_error() -> None:
    text = "ModuleNotFoundError: No module named 'x' (while handling TypeError)"
    assert classify(text) == "import_error"
