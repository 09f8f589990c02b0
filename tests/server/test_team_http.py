"""One meta-server for a team, over real HTTP with the MCP client: roles, server globs,
revoked and expired tokens, OAuth JWTs, the protected-resource metadata, quotas, and the
audit rows all of it leaves.

Generated servers are the fake FastMCP server of ``fake_children``; a conversion is a fake
pipeline (registering a fake server), so nothing is fetched or built.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError
from mcp.shared.auth import ProtectedResourceMetadata
from mcp.shared.exceptions import MCPError
from serving import ACCEPT, INITIALIZE, serving_http
from team_fixtures import ISSUER, RESOURCE, Issuer, oauth_settings, stranger_token

from metaserver.auth.audit import AuditLog
from metaserver.auth.tokens import TokenStore
from metaserver.contracts import ConversionReport
from metaserver.registry.store import Registry
from metaserver.settings import Settings

pytestmark = pytest.mark.integration


def _team(tmp_path: Path, **auth: Any) -> Settings:
    settings = fast_settings(tmp_path / "home", auth=auth)
    register_fake(settings, "alpha")
    register_fake(settings, "beta")
    return settings


def _fake_pipeline(monkeypatch: pytest.MonkeyPatch, gate: asyncio.Event | None = None) -> dict:
    """Replace the pipeline: each conversion of pypi:NAME registers fake server NAME (after
    ``gate`` opens, when given); the dict counts running conversions."""
    running = {"now": 0}

    async def fake_convert(source: str, *, settings: Settings, **_: Any) -> ConversionReport:
        running["now"] += 1
        try:
            if gate is not None:
                await gate.wait()
            name = source.removeprefix("pypi:")
            register_fake(settings, name)
            return ConversionReport(server=name, source=source, status="success", tools_passed=6)
        finally:
            running["now"] -= 1

    monkeypatch.setattr("metaserver.pipeline.convert", fake_convert)
    return running


async def _status(url: str, token: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as http:
        headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
        return await http.post(url, json=INITIALIZE, headers=headers)


async def _names(client: Client[Any]) -> set[str]:
    return {tool.name for tool in await client.list_tools()}


async def test_roles_globs_revocation_and_their_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _team(tmp_path)
    tokens = TokenStore(Registry(settings.registry_path))
    caller = tokens.create("caller", "call")
    converter = tokens.create("converter", "convert")
    alpha_only = tokens.create("alpha-only", "call", servers="alpha")
    brief = tokens.create("brief", "call", expires_days=1)
    _fake_pipeline(monkeypatch)
    async with serving_http(settings) as url:
        async with Client(url, auth=caller) as client:
            names = await _names(client)
            assert "convert_repo" not in names and "remove_server" not in names
            assert {"list_tools", "call_generated", "alpha_add"} <= names
            with pytest.raises(ToolError, match="convert_repo needs scope 'convert'"):
                await client.call_tool("convert_repo", {"source": "pypi:gamma"})
            assert (await client.call_tool("alpha_add", {"a": 1, "b": 2})).data == 3

        async with Client(url, auth=converter) as client:
            report = (await client.call_tool("convert_repo", {"source": "pypi:gamma"})).data
            assert report["status"] == "success" and report["server"] == "gamma"
            assert "gamma" in {s["name"] for s in (await client.call_tool("list_servers")).data}
            with pytest.raises(ToolError, match="remove_server needs scope 'admin'"):
                await client.call_tool("remove_server", {"server": "gamma"})
        assert Registry(settings.registry_path).get("gamma").name == "gamma"  # not removed

        async with Client(url, auth=alpha_only) as client:
            listed = (await client.call_tool("list_tools", {"limit": 100})).data
            assert listed and {hit["server"] for hit in listed} == {"alpha"}
            servers = (await client.call_tool("list_servers")).data
            assert [s["name"] for s in servers] == ["alpha"]
            names = await _names(client)
            assert "alpha_add" in names and not {n for n in names if n.startswith("beta_")}
            arguments = {"server": "beta", "tool": "add", "arguments": {"a": 1, "b": 1}}
            with pytest.raises(ToolError, match="may not use server 'beta'"):
                await client.call_tool("call_generated", arguments)
            with pytest.raises(ToolError, match="may not use server 'beta'"):
                await client.call_tool("beta_add", {"a": 1, "b": 1})
            arguments["server"] = "alpha"
            assert (await client.call_tool("call_generated", arguments)).data == 2

        assert (await _status(url, brief)).status_code == 200
        tokens.revoke("caller")
        with Registry(settings.registry_path).connect() as db:
            db.execute("UPDATE auth_tokens SET expires_at = ? WHERE name = 'brief'", (time.time(),))
        for stale in (caller, brief):
            answer = await _status(url, stale)
            assert answer.status_code == 401
            assert answer.json()["error"] == "invalid bearer token"
            assert 'error="invalid_token"' in answer.headers["www-authenticate"]
        with pytest.raises(Exception):  # noqa: B017 - the client reports a 401 generically
            async with Client(url, auth=caller) as client:
                await client.list_tools()

    rows = AuditLog(Registry(settings.registry_path)).events()
    # The conversion itself is a row of its own, written when its job ends.
    assert [(r.who, r.target, r.outcome) for r in rows if r.action == "conversion"] == [
        ("converter", "gamma", "ok")
    ]
    calls = [r for r in rows if r.action != "conversion"]
    assert [(r.who, r.action, r.outcome) for r in calls] == [
        ("caller", "convert_repo", "refused"),
        ("caller", "alpha_add", "ok"),
        ("converter", "convert_repo", "ok"),
        ("converter", "list_servers", "ok"),
        ("converter", "remove_server", "refused"),
        ("alpha-only", "list_tools", "ok"),
        ("alpha-only", "list_servers", "ok"),
        ("alpha-only", "call_generated", "refused"),
        ("alpha-only", "beta_add", "refused"),
        ("alpha-only", "call_generated", "ok"),
    ]
    assert [r.target for r in calls[7:]] == ["beta", "beta", "alpha"]
    assert calls[4].target == "gamma" and calls[1].target == "alpha"
    assert all(r.seconds >= 0 for r in rows) and rows[1].arguments_sha256
    with Registry(settings.registry_path).connect() as db:
        dumped = json.dumps(db.execute("SELECT * FROM audit").fetchall())
    for secret in (caller, converter, alpha_only, brief, "pypi:gamma"):
        assert secret not in dumped


async def test_oauth_tokens_metadata_and_challenges(tmp_path: Path) -> None:
    issuer = Issuer()
    jwks = issuer.write_jwks(tmp_path / "jwks.json")
    settings = _team(tmp_path, **oauth_settings(jwks))
    async with serving_http(settings) as url:
        async with Client(url, auth=issuer.mint("alice", "metaserver:call")) as client:
            assert (await client.call_tool("alpha_add", {"a": 2, "b": 2})).data == 4
            with pytest.raises(ToolError, match="needs scope 'convert'"):
                await client.call_tool("convert_repo", {"source": "pypi:x"})

        metadata_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        async with httpx.AsyncClient(timeout=10) as http:
            document = (await http.get(metadata_url)).json()
        metadata = ProtectedResourceMetadata.model_validate(document)
        assert str(metadata.resource) == RESOURCE
        assert [str(s).rstrip("/") for s in metadata.authorization_servers] == [ISSUER]
        assert metadata.scopes_supported == [
            "metaserver:call",
            "metaserver:convert",
            "metaserver:admin",
        ]
        advertised = f'resource_metadata="{RESOURCE.removesuffix("/mcp")}'

        for bad in (
            issuer.mint(aud="https://other.example.org/mcp"),
            stranger_token(),
            issuer.mint(exp=int(time.time()) - 300),
        ):
            answer = await _status(url, bad)
            assert answer.status_code == 401
            challenge = answer.headers["www-authenticate"]
            assert 'error="invalid_token"' in challenge and advertised in challenge
        async with httpx.AsyncClient(timeout=10) as http:
            missing = await http.post(url, json=INITIALIZE, headers=ACCEPT)
        assert missing.status_code == 401 and advertised in missing.headers["www-authenticate"]

        few = await _status(url, issuer.mint(scope="openid profile"))
        assert few.status_code == 403
        challenge = few.headers["www-authenticate"]
        assert 'error="insufficient_scope"' in challenge and 'scope="metaserver:call"' in challenge

    rows = AuditLog(Registry(settings.registry_path)).events()
    assert [(r.who, r.action, r.outcome) for r in rows] == [
        ("oauth:alice", "alpha_add", "ok"),
        ("oauth:alice", "convert_repo", "refused"),
    ]


async def test_a_third_conversion_waits_for_its_own_principal_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _team(tmp_path, conversions_per_principal=2)
    settings = Settings.model_validate({**settings.model_dump(), "max_concurrent_conversions": 4})
    tokens = TokenStore(Registry(settings.registry_path))
    alice, bob = tokens.create("alice", "convert"), tokens.create("bob", "convert")
    gate = asyncio.Event()
    running = _fake_pipeline(monkeypatch, gate)

    async def until(count: int) -> None:
        deadline = time.monotonic() + 10
        while running["now"] < count:
            assert time.monotonic() < deadline, f"{running['now']} conversions run, not {count}"
            await asyncio.sleep(0.02)

    async with serving_http(settings) as url:
        async with Client(url, auth=alice) as mine, Client(url, auth=bob) as theirs:
            first = asyncio.create_task(mine.call_tool("convert_repo", {"source": "pypi:c1"}))
            second = asyncio.create_task(mine.call_tool("convert_repo", {"source": "pypi:c2"}))
            await until(2)
            with pytest.raises(ToolError, match="alice already runs 2 conversions"):
                await mine.call_tool("convert_repo", {"source": "pypi:c3"})
            joined = asyncio.create_task(mine.call_tool("convert_repo", {"source": "pypi:c1"}))
            other = asyncio.create_task(theirs.call_tool("convert_repo", {"source": "pypi:c4"}))
            await until(3)  # bob's starts while alice is at her limit; joining c1 starts none
            gate.set()
            done = await asyncio.gather(first, second, joined, other)
            assert [r.data["server"] for r in done] == ["c1", "c2", "c1", "c4"]
    events = AuditLog(Registry(settings.registry_path)).events()
    refused = [r for r in events if r.outcome == "refused"]
    assert [(r.who, r.action, r.detail) for r in refused] == [("alice", "convert_repo", "quota")]
    conversions = [r for r in events if r.action == "conversion"]
    assert sorted((r.who, r.target) for r in conversions) == [
        ("alice", "c1"),
        ("alice", "c2"),
        ("bob", "c4"),
    ]


async def test_calls_over_the_rate_get_429(tmp_path: Path) -> None:
    settings = _team(tmp_path, calls_per_minute=3)
    tokens = TokenStore(Registry(settings.registry_path))
    quick, other = tokens.create("quick", "call"), tokens.create("other", "call")
    async with serving_http(settings) as url:
        async with Client(url, auth=quick) as client:
            for n in range(3):
                assert (await client.call_tool("alpha_add", {"a": n, "b": 1})).data == n + 1
            assert await _names(client)  # listing is no tool call
            with pytest.raises(MCPError, match=r"auth\.calls_per_minute") as refused:
                await client.call_tool("alpha_add", {"a": 1, "b": 1})
            assert refused.value.error.code == -32029
        async with Client(url, auth=other) as client:
            assert (await client.call_tool("alpha_add", {"a": 5, "b": 5})).data == 10
        call = {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "alpha_add", "arguments": {"a": 1, "b": 2}},
        }
        async with httpx.AsyncClient(timeout=10) as http:
            headers = {**ACCEPT, "Authorization": f"Bearer {quick}"}
            answer = await http.post(url, json=call, headers=headers)
        assert answer.status_code == 429 and int(answer.headers["retry-after"]) >= 1
        error = answer.json()
        assert error["id"] == 9 and error["error"]["code"] == -32029
        assert "auth.calls_per_minute" in error["error"]["message"]
    rows = AuditLog(Registry(settings.registry_path)).events(who="quick")
    assert [r.outcome for r in rows] == ["ok", "ok", "ok", "refused", "refused"]
    assert rows[-1].detail == "calls per minute"
