"""``metaserver token`` and ``metaserver audit`` through the real command line."""

from __future__ import annotations

import json

import pytest

from metaserver.auth.commands import parse_since
from metaserver.auth.tokens import TokenStore
from metaserver.cli import main
from metaserver.exceptions import UserError
from metaserver.registry.store import Registry
from metaserver.settings import Settings


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_create_prints_the_token_alone_then_list_and_revoke(
    capsys: pytest.CaptureFixture[str], settings: Settings
) -> None:
    code, out, err = _run(
        capsys,
        "token",
        "create",
        "ci-bot",
        "--scope",
        "convert",
        "--servers",
        "ci-*",
        "--expires",
        "30",
    )
    token = out.strip()
    assert code == 0 and out == token + "\n" and token.startswith("mst_")
    assert token not in err and "not shown again" in err
    store = TokenStore(Registry(settings.registry_path))
    verified = store.verify(token)
    assert verified is not None and verified.principal.servers == "ci-*"

    code, out, _ = _run(capsys, "token", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and [(t["name"], t["scope"], t["servers"]) for t in listed] == [
        ("ci-bot", "convert", "ci-*")
    ]
    assert listed[0]["expires"] is not None and token not in out
    code, out, _ = _run(capsys, "token", "list")
    assert "ci-bot" in out and "convert" in out

    assert _run(capsys, "token", "revoke", "ci-bot")[0] == 0
    assert store.verify(token) is None
    code, _, err = _run(capsys, "token", "revoke", "ci-bot")
    assert code == 2 and "no token named" in err
    code, _, err = _run(capsys, "token", "create", "operator", "--scope", "admin")
    assert code == 2 and "not a token name" in err


def test_audit_shows_token_changes_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "token", "create", "one", "--scope", "call")
    _run(capsys, "token", "revoke", "one")
    code, out, _ = _run(capsys, "audit", "--json")
    rows = json.loads(out)
    assert code == 0 and [(r["action"], r["target"], r["outcome"]) for r in rows] == [
        ("token create", "one", "ok"),
        ("token revoke", "one", "ok"),
    ]
    assert all(r["who"].startswith("local") for r in rows)
    assert "mst_" not in out
    code, out, _ = _run(capsys, "audit", "--since", "1h", "--who", rows[0]["who"])
    assert code == 0 and out.count("token ") == 2
    assert json.loads(_run(capsys, "audit", "--json", "--who", "nobody")[1]) == []
    code, _, err = _run(capsys, "audit", "--since", "yesterday")
    assert code == 2 and "--since" in err


def test_a_cli_removal_is_audited(capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "token", "create", "one", "--scope", "call")  # the registry exists
    code, _, _ = _run(capsys, "remove", "ghost")
    assert code == 2
    rows = json.loads(_run(capsys, "audit", "--json")[1])
    assert [(r["action"], r["target"], r["outcome"], r["detail"]) for r in rows[1:]] == [
        ("remove", "ghost", "error", "NotFoundError")
    ]


def test_since_takes_ages_and_dates() -> None:
    assert parse_since("90m", now=10000.0) == 10000.0 - 5400
    assert parse_since("2d", now=200000.0) == 200000.0 - 172800
    assert parse_since("1970-01-02") == 86400.0
    assert parse_since("1970-01-01T01:00:00+01:00") == 0.0
    with pytest.raises(UserError):
        parse_since("soon")
