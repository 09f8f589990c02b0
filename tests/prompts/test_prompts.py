"""metaserver.prompts: the prompt files ship with the package and fill every placeholder."""

from __future__ import annotations

import pytest

from metaserver.prompts import render

PLACEHOLDERS = {
    "select": {"max_tools": "3", "package": "pkg", "candidates": "pkg:add | () |  | "},
    "describe": {"package": "pkg", "tools": "[]"},
    "examples": {"target": "pkg:add", "signature": "()", "doc": "Adds.", "schema": "{}"},
    "review": {
        "target": "pkg:add",
        "name": "add",
        "signature": "()",
        "doc": "Adds.",
        "schema": "{}",
        "arguments": "{}",
        "error": "TypeError",
        "classified": "api_inference_error",
    },
}


@pytest.mark.parametrize("prompt", sorted(PLACEHOLDERS))
def test_every_prompt_renders_to_a_system_and_a_user_message(prompt: str) -> None:
    system, user = render(prompt, **PLACEHOLDERS[prompt])
    assert system.role == "system" and "JSON" in system.content
    assert user.role == "user" and "$" not in user.content
    for value in PLACEHOLDERS[prompt].values():
        assert value in user.content


def test_a_missing_value_is_an_error_not_an_odd_prompt() -> None:
    with pytest.raises(KeyError):
        render("describe", package="pkg")
