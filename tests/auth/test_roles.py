"""Roles include each other in order; server globs limit what a principal sees."""

from __future__ import annotations

import pytest

from metaserver.auth.roles import LOCAL, Principal, check_glob, grants, role_needed


def test_each_role_includes_the_ones_before() -> None:
    assert grants("call") == ["call"]
    assert grants("convert") == ["call", "convert"]
    assert grants("admin") == ["call", "convert", "admin"]
    caller = Principal("c", "call")
    assert caller.may("call") and not caller.may("convert") and not caller.may("admin")
    assert Principal("a", "admin").may("convert")


def test_tools_need_the_role_the_issue_names() -> None:
    assert role_needed("list_tools") == "call" and role_needed("call_generated") == "call"
    assert role_needed("alpha_add") == "call"  # a direct tool
    assert role_needed("convert_repo") == "convert" and role_needed("add_server") == "convert"
    assert role_needed("remove_server") == "admin"


def test_globs_match_server_names_not_versions() -> None:
    limited = Principal("s", "call", "stats-*,plot")
    assert limited.sees("stats-core") and limited.sees("plot") and limited.sees("stats-x@v2")
    assert not limited.sees("plotting") and not limited.sees("other")
    assert LOCAL.sees("anything")


@pytest.mark.parametrize("glob", ["", " ", "a,,b", "a b", "../x", "a;b"])
def test_bad_globs_are_refused(glob: str) -> None:
    with pytest.raises(ValueError, match="not a server glob"):
        check_glob(glob)


def test_globs_are_normalised() -> None:
    assert check_glob(" a-* , b ") == "a-*,b"
