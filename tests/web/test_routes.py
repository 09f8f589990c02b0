"""The page's routes over real HTTP: the token guards every data route and /metrics, the
Host and Origin guard of /mcp covers them too, and no page shows a host path."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from fake_children import fast_settings, register_fake
from serving import serving_http

from metaserver.settings import Settings

pytestmark = pytest.mark.integration

TOKEN = "page-token-1"
DATA_ROUTES = [
    "/ui/servers",
    "/ui/server/alpha",
    "/ui/tool/alpha/add",
    "/ui/search?q=add+two+numbers",
    "/ui/conversions",
    "/ui/failed",
    "/metrics",
]


def _settings(tmp_path: Path, token: str | None = TOKEN) -> Settings:
    home = fast_settings(tmp_path / "home")
    register_fake(home, "alpha", version="v1")
    values = home.model_dump()
    if token is not None:
        values["auth"] = {"token": token}
    return Settings.model_validate(values)


def _base(url: str) -> str:
    return url.removesuffix("/mcp")


async def test_without_the_token_only_the_sign_in_shell_is_served(tmp_path: Path) -> None:
    async with serving_http(_settings(tmp_path)) as url, httpx.AsyncClient(timeout=30) as http:
        base = _base(url)
        shell = await http.get(base + "/")
        assert shell.status_code == 200
        assert 'id="signin"' in shell.text and "alpha" not in shell.text
        assert shell.headers["cache-control"] == "no-store"
        assert "frame-ancestors 'none'" in shell.headers["content-security-policy"]
        for route in DATA_ROUTES:
            answer = await http.get(base + route)
            assert answer.status_code == 401, route
            assert "alpha" not in answer.text
            wrong = await http.get(base + route, headers={"Authorization": "Bearer nope"})
            assert wrong.status_code == 401, route
        posted = await http.post(base + "/ui/call", json={"server": "alpha", "tool": "add"})
        assert posted.status_code == 401
        started = await http.post(base + "/ui/conversions", json={"source": str(tmp_path)})
        assert started.status_code == 401
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for route in DATA_ROUTES:
            answer = await http.get(base + route, headers=auth)
            assert answer.status_code == 200, (route, answer.text[:300])


async def test_a_foreign_host_or_origin_is_refused_as_for_mcp(tmp_path: Path) -> None:
    async with serving_http(_settings(tmp_path)) as url, httpx.AsyncClient(timeout=30) as http:
        base, auth = _base(url), {"Authorization": f"Bearer {TOKEN}"}
        for route in ["/", "/ui/servers", "/metrics"]:
            rebound = await http.get(base + route, headers={**auth, "Host": "evil.example"})
            assert rebound.status_code == 421, route
            foreign = await http.get(
                base + route, headers={**auth, "Origin": "http://evil.example"}
            )
            assert foreign.status_code == 403, route
        call = await http.post(
            base + "/ui/call",
            json={"server": "alpha", "tool": "add", "arguments": {"a": 1, "b": 2}},
            headers={**auth, "Origin": "http://evil.example"},
        )
        assert call.status_code == 403


async def test_pages_show_data_and_no_host_path(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    async with serving_http(settings) as url, httpx.AsyncClient(timeout=60) as http:
        base, auth = _base(url), {"Authorization": f"Bearer {TOKEN}"}
        pages = {route: (await http.get(base + route, headers=auth)).text for route in DATA_ROUTES}
        assert "alpha" in pages["/ui/servers"] and ">6<" in pages["/ui/servers"]  # 6 tools
        assert "Add two integers" in pages["/ui/server/alpha"]
        tool = pages["/ui/tool/alpha/add"]
        assert 'class="try"' in tool and 'name="a"' in tool and 'data-type="integer"' in tool
        search = pages["/ui/search?q=add+two+numbers"]
        first = search[search.index("alpha / ") :].split("<", 1)[0]
        assert first == "alpha / add", search  # the best hit first
        called = await http.post(
            base + "/ui/call",
            json={"server": "alpha", "tool": "add", "arguments": {"a": 2, "b": 40}},
            headers=auth,
        )
        assert called.status_code == 200 and ">42<" in called.text.replace("<pre>", ">")
        bad = await http.post(
            base + "/ui/call",
            json={"server": "alpha", "tool": "add", "arguments": {"a": "x"}},
            headers=auth,
        )
        assert bad.status_code == 400 and "invalid arguments" in bad.text
        boom = await http.post(
            base + "/ui/call",
            json={"server": "alpha", "tool": "explode", "arguments": {"message": "hi"}},
            headers=auth,
        )
        pages["explode"] = boom.text
        assert "boom: hi" in boom.text
        for name, text in pages.items():
            for path in (str(tmp_path), str(settings.home), sys.prefix, sys.executable):
                assert path not in text, (name, path)
