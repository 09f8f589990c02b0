"""explain_handles: a one-shot call says where a handle lives instead of "expired"."""

from __future__ import annotations

from metaserver.children.oneshot import HANDLE_PREFIX, explain_handles
from metaserver.runtime.handles import HANDLE_PREFIX as RUNTIME_PREFIX

UNKNOWN = "KeyError: unknown or expired handle 'h_1f2e': the object may have been evicted"


def test_a_handle_from_another_process_is_explained() -> None:
    for arguments in ({"grid": {"handle": "h_1f2e", "type": "pkg.Grid"}}, {"grid": "h_1f2e"}):
        text = explain_handles(UNKNOWN, arguments)
        assert "h_1f2e is a handle from another server process" in text
        assert "each `metaserver call` starts a new one" in text
        assert "expired" not in text


def test_other_errors_and_calls_without_handles_are_left_as_they_are() -> None:
    assert explain_handles("ValueError: bad", {"grid": "h_1f2e"}) == "ValueError: bad"
    assert explain_handles(UNKNOWN, {"n": 3, "names": ["a"]}) == UNKNOWN


def test_the_prefix_is_the_runtimes() -> None:
    assert HANDLE_PREFIX == RUNTIME_PREFIX
