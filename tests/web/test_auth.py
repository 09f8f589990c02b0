"""The one token check of the page and /metrics."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request

from metaserver.settings import Settings
from metaserver.web.auth import authorized


def _request(header: str | None) -> Request:
    headers = [(b"authorization", header.encode())] if header is not None else []
    return Request({"type": "http", "method": "GET", "path": "/ui/servers", "headers": headers})


def test_the_token_is_required_when_set(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, auth={"token": "t0ken"})
    assert authorized(_request("Bearer t0ken"), settings)
    assert authorized(_request("bearer t0ken"), settings)
    for header in (None, "", "Bearer", "Bearer t0ke", "Basic t0ken", "Bearer t0ken2"):
        assert not authorized(_request(header), settings), header


def test_no_token_set_lets_everyone_in(tmp_path: Path) -> None:
    assert authorized(_request(None), Settings(home=tmp_path))
