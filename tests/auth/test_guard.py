"""What the guard refuses, in words that say what is missing."""

from __future__ import annotations

from metaserver.auth.guard import refusal
from metaserver.auth.roles import LOCAL, Principal


def test_roles_and_globs_are_checked() -> None:
    caller = Principal("c", "call", "stats-*")
    assert refusal(caller, "call_generated", "stats-a") is None
    assert refusal(caller, "list_tools", None) is None
    why = refusal(caller, "convert_repo", None)
    assert why is not None and "needs scope 'convert'" in why and "'call'" in why
    why = refusal(caller, "call_generated", "plot")
    assert why is not None and "may not use server 'plot'" in why
    admin = Principal("a", "admin")
    assert refusal(admin, "remove_server", "plot") is None
    assert refusal(Principal("v", "convert"), "remove_server", "plot") is not None
    assert refusal(LOCAL, "remove_server", "anything") is None
