"""The page's and /metrics' token check: an admin's token, as /mcp accepts it."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request

from metaserver.auth.tokens import TokenStore
from metaserver.registry.store import Registry
from metaserver.settings import Settings
from metaserver.web.auth import PageAuth


def _request(header: str | None) -> Request:
    headers = [(b"authorization", header.encode())] if header is not None else []
    return Request({"type": "http", "method": "GET", "path": "/ui/servers", "headers": headers})


async def test_the_static_token_is_required_when_set(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, auth={"token": "t0ken"})
    page = PageAuth(settings, Registry(settings.registry_path))
    assert await page.authorized(_request("Bearer t0ken"))
    assert await page.authorized(_request("bearer t0ken"))
    for header in (None, "", "Bearer", "Bearer t0ke", "Basic t0ken", "Bearer t0ken2"):
        assert not await page.authorized(_request(header)), header


async def test_no_authentication_configured_lets_everyone_in(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    assert await PageAuth(settings, Registry(settings.registry_path)).authorized(_request(None))


async def test_stored_tokens_only_an_admin_of_every_server_sees_the_page(tmp_path: Path) -> None:
    # Stored tokens and no static one: the page is closed as /mcp is, and only an admin
    # whose token reaches every server may open it (it shows them all and calls any tool).
    settings = Settings(home=tmp_path)
    registry = Registry(settings.registry_path)
    store = TokenStore(registry)
    admin = store.create("ada", "admin")
    caller = store.create("cal", "call")
    narrow = store.create("nat", "admin", servers="stats-*")
    page = PageAuth(settings, registry)
    assert await page.authorized(_request(f"Bearer {admin}"))
    assert not await page.authorized(_request(None))
    assert not await page.authorized(_request(f"Bearer {caller}"))
    assert not await page.authorized(_request(f"Bearer {narrow}"))
    store.revoke("ada")
    assert not await page.authorized(_request(f"Bearer {admin}"))
