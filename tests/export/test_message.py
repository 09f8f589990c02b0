"""The commit message: a subject, then what was generated and how each tool was proven."""

from __future__ import annotations

from metaserver.export.message import commit_message

CALLS = [
    {"tool": "mean", "check": "expected-value"},
    {"tool": "add", "check": "expected-value"},
    {"tool": "report", "check": "notebook-outputs"},
    {"tool": "ping", "check": "no-error"},
]


def test_the_message_says_what_was_generated_and_how_it_was_proven() -> None:
    message = commit_message(
        "calcpack",
        "mcp",
        "https://example.org/calc.git",
        "a" * 40,
        "0.1.0",
        CALLS,
        "pyproject.toml",
        "pip install -e '.[mcp]'",
    )
    subject, blank, *body = message.splitlines()
    assert (subject, blank) == ("Add an MCP server for calcpack", "")
    assert all(len(line) <= 72 for line in body)
    text = " ".join(body)
    assert f"https://example.org/calc.git at {'a' * 40}" in text
    assert "each of the 4 tools was called through a real MCP client" in text
    assert "2 returned the value the repository's own documentation shows" in text
    assert "1 reproduced a notebook's stored outputs" in text
    assert "1 answered without error" in text
    assert "Tools: add, mean, ping, report." in text
    assert message.endswith("\n")


def test_a_message_without_a_commit_or_unchecked_tools_says_neither() -> None:
    message = commit_message(
        "calcpack", "mcp", "calc", None, "0.1.0", CALLS[:2], "mcp/requirements.txt", "pip"
    )
    assert " at " not in message.splitlines()[2]
    assert "without error" not in message and "notebook" not in message
