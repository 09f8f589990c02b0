"""The meta-server, driven by a real FastMCP client in memory, over stdio and over HTTP.

Generated servers are stood in for by the fake FastMCP server of ``fake_children``, started
through the real sandbox command; the pipeline is replaced by a fake where a conversion is
needed, so these tests never fetch or build anything.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import mcp_types
import pytest
from fake_children import fake_record, fast_settings, register_fake, server_pids
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from mcp.client.subscriptions import listen
from serving import ACCEPT, INITIALIZE, free_port, serving_http

import metaserver
from metaserver.contracts import ConversionReport
from metaserver.exceptions import RegistryError, UserError
from metaserver.registry.files import discard_files
from metaserver.registry.store import Registry
from metaserver.server.app import build_server, is_loopback, run
from metaserver.server.state import META_TOOLS
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

FAKE_TOOLS = {"add", "split_words", "nap", "explode", "pid", "instance"}


class Recorder:
    """A message handler that counts tools/list_changed notifications."""

    def __init__(self) -> None:
        self.list_changed = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.list_changed += 1

    async def wait(self, count: int = 1, timeout: float = 5) -> None:
        deadline = time.monotonic() + timeout
        while self.list_changed < count:
            assert time.monotonic() < deadline, "no tools/list_changed notification"
            await asyncio.sleep(0.02)


def _text(result: Any) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


async def _tool_names(client: Client[Any]) -> set[str]:
    return {tool.name for tool in await client.list_tools()}


@pytest.fixture
def home_settings(tmp_path: Path) -> Settings:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    return settings


async def test_tools_are_listed_searched_and_called(home_settings: Settings) -> None:
    async with Client(build_server(home_settings), mode="legacy") as client:
        names = await _tool_names(client)
        assert META_TOOLS <= names
        assert {f"alpha_{tool}" for tool in FAKE_TOOLS} <= names

        hits = (await client.call_tool("list_tools", {"query": "sum of two integers"})).data
        assert (hits[0]["server"], hits[0]["tool"]) == ("alpha", "add")
        assert hits[0]["score"] > 0 and hits[0]["input_schema"]["required"] == ["a", "b"]
        listed = (await client.call_tool("list_tools", {"server": "alpha", "limit": 2})).data
        assert [hit["tool"] for hit in listed] == ["add", "explode"]
        assert listed[0]["score"] is None

        called = await client.call_tool(
            "call_generated", {"server": "alpha", "tool": "add", "arguments": {"a": 2, "b": 3}}
        )
        assert called.data == 5
        words = await client.call_tool(
            "call_generated",
            {"server": "alpha", "tool": "split_words", "arguments": {"text": "x y"}},
        )
        assert words.data == ["x", "y"]
        assert (await client.call_tool("alpha_add", {"a": 20, "b": 22})).data == 42

        servers = (await client.call_tool("list_servers", {})).data
        assert [(s["name"], s["tools"], s["source"]) for s in servers] == [
            ("alpha", 6, "test:alpha")
        ]
        # call_generated and the direct tool share one child. (Its own id, not its pid: under
        # the bwrap backend the child runs in a pid namespace of its own.)
        instance = (await client.call_tool("alpha_instance", {})).data
        generated = await client.call_tool(
            "call_generated", {"server": "alpha", "tool": "instance"}
        )
        assert generated.data == instance
        assert server_pids(home_settings.servers_dir / "alpha")
    # Leaving the server's lifespan stops its children.
    assert server_pids(home_settings.servers_dir / "alpha") == []


async def test_errors_are_short_and_scrubbed(
    home_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(home_settings.home)
    async with Client(build_server(home_settings), mode="legacy") as client:
        for name, arguments in [
            ("alpha_explode", {"message": "m"}),
            (
                "call_generated",
                {"server": "alpha", "tool": "explode", "arguments": {"message": "m"}},
            ),
        ]:
            result = await client.call_tool(name, arguments, raise_on_error=False)
            text = _text(result)
            assert result.is_error and "boom: m" in text
            assert "Traceback" not in text and home not in text
            # The server's own file: at its neutral path under bwrap (scrubbed as any path
            # outside the home), or in the home under the process backend.
            assert re.search(r"boom: m at (\$METASERVER_HOME/servers/alpha|<path>)", text)

        cases = [
            ({"server": "nobody", "tool": "add"}, "no registered server named 'nobody'"),
            ({"server": "alpha", "tool": "nope"}, "has no tool named 'nope'"),
            ({"server": "alpha", "tool": "add", "arguments": {"a": "x", "b": 1}}, "invalid"),
        ]
        for arguments, expected in cases:
            result = await client.call_tool("call_generated", arguments, raise_on_error=False)
            assert result.is_error and expected in _text(result)
        direct = await client.call_tool("alpha_add", {"a": 1}, raise_on_error=False)
        assert direct.is_error and "invalid arguments" in _text(direct)
        with pytest.raises(ToolError, match="no registered server"):
            await client.call_tool("remove_server", {"server": "nobody"})

        # An unexpected failure is scrubbed too (a RegistryError names the registry's path).
        def broken(self: Registry, name: str, version: str | None = None) -> None:
            raise RegistryError(f"cannot open the registry at {self.path}: disk on fire")

        monkeypatch.setattr(Registry, "get", broken)
        # A ref not resolved before: a resolved one is kept while the registry is unchanged.
        result = await client.call_tool(
            "call_generated", {"server": "alpha@other", "tool": "add"}, raise_on_error=False
        )
        assert result.is_error and "disk on fire" in _text(result)
        assert home not in _text(result) and "$METASERVER_HOME" in _text(result)


async def test_errors_name_the_tool_the_client_called(home_settings: Settings) -> None:
    async with Client(build_server(home_settings), mode="legacy") as client:
        result = await client.call_tool("alpha_explode", {"message": "m"}, raise_on_error=False)
        text = _text(result)
        assert result.is_error and "boom: m" in text
        assert "'alpha_explode'" in text and "'explode'" not in text, text


async def test_server_info_is_metaserver_and_its_version(home_settings: Settings) -> None:
    server = build_server(home_settings)
    async with Client(server, mode="legacy") as legacy:
        assert legacy.initialize_result is not None
        info = legacy.initialize_result.server_info
        assert (info.name, info.version) == ("metaserver", metaserver.__version__)
    async with Client(server) as modern:  # 2026-07-28: serverInfo rides on each result
        result = await modern.call_tool("list_servers", {})
        info_meta = (result.meta or {})["io.modelcontextprotocol/serverInfo"]
        assert info_meta == {"name": "metaserver", "version": metaserver.__version__}


async def test_empty_answers_carry_a_sentence(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    async with Client(build_server(settings), mode="legacy") as client:
        cases = [
            ("list_servers", {}, "no servers are registered"),
            ("list_tools", {}, "no tools are registered"),
            ("list_tools", {"query": "median"}, "no tools match 'median'"),
            ("list_tools", {"server": "nobody"}, "no tools of server 'nobody'"),
        ]
        for tool, arguments, sentence in cases:
            result = await client.call_tool(tool, arguments)
            assert sentence in _text(result), (tool, _text(result))
            # The structured result keeps its contract: an empty list.
            assert result.structured_content == {"result": []} and result.data == []
    register_fake(settings, "alpha")
    async with Client(build_server(settings), mode="legacy") as client:
        listed = await client.call_tool("list_servers", {})
        assert "no servers" not in _text(listed) and listed.data[0]["name"] == "alpha"


async def test_remove_server_notifies_this_and_other_legacy_sessions(
    home_settings: Settings,
) -> None:
    server = build_server(home_settings)
    mine, theirs = Recorder(), Recorder()
    async with (
        Client(server, mode="legacy", message_handler=mine) as client,
        Client(server, mode="legacy", message_handler=theirs) as other,
    ):
        await other.call_tool("list_servers", {})  # the server now knows this session
        assert (await client.call_tool("alpha_add", {"a": 1, "b": 1})).data == 2
        removed = await client.call_tool("remove_server", {"server": "alpha"})
        assert removed.data["removed"] == "alpha" and removed.data["tools"] == 6
        assert len(removed.data["versions"]) == 1 and removed.data["remaining"] == []
        await mine.wait()
        await theirs.wait()
        assert not {n for n in await _tool_names(client) if n.startswith("alpha_")}
        assert (await client.call_tool("list_servers", {})).data == []
        assert (await client.call_tool("list_tools", {})).data == []
        assert server_pids(home_settings.servers_dir / "alpha") == []
        gone = await client.call_tool("alpha_add", {"a": 1, "b": 1}, raise_on_error=False)
        assert gone.is_error


async def test_modern_clients_hear_of_changes_through_subscriptions(
    home_settings: Settings,
) -> None:
    server = build_server(home_settings)
    async with Client(server) as watcher, Client(server) as actor:
        assert watcher.protocol_version == "2026-07-28"
        assert watcher.server_capabilities.tools.list_changed is True
        async with listen(watcher.session, tools_list_changed=True) as events:
            await actor.call_tool("remove_server", {"server": "alpha"})
            event = await asyncio.wait_for(events.__anext__(), 5)
            assert type(event).__name__ == "ToolsListChanged"
        assert not {n for n in await _tool_names(watcher) if n.startswith("alpha_")}


async def test_convert_repo_mounts_reports_progress_and_notifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast_settings(tmp_path / "home", max_concurrent_conversions=1)
    running = {"now": 0, "most": 0}

    async def fake_convert(
        source: str, *, settings: Settings, progress: Any = None, **_: Any
    ) -> ConversionReport:
        if source == "bad":
            raise UserError(f"bad source; see {settings.home}/x")
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        try:
            await progress("fetch", 1, 6)
            await asyncio.sleep(0.2)
            await progress("register", 6, 6)
        finally:
            running["now"] -= 1
        if source.startswith("broken"):
            return ConversionReport(server="broken", source=source, status="failed")
        register_fake(settings, "beta")
        return ConversionReport(server="beta", source=source, status="success", tools_passed=5)

    monkeypatch.setattr("metaserver.pipeline.convert", fake_convert)
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    recorder = Recorder()
    server = build_server(settings)
    async with Client(server, mode="legacy", message_handler=recorder) as client:
        assert not {n for n in await _tool_names(client) if n.startswith("beta_")}
        result = await client.call_tool(
            "convert_repo", {"source": "pypi:beta"}, progress_handler=on_progress
        )
        assert result.data["status"] == "success" and result.data["server"] == "beta"
        assert seen == [(1, 6, "fetch"), (6, 6, "register")]
        await recorder.wait()
        assert (await client.call_tool("beta_add", {"a": 2, "b": 2})).data == 4

        with pytest.raises(ToolError) as caught:
            await client.call_tool("convert_repo", {"source": "bad"})
        assert "bad source" in str(caught.value)
        assert str(settings.home) not in str(caught.value)

        failed = await asyncio.gather(
            # Two sources: the same one twice would be a single, joined conversion.
            client.call_tool("convert_repo", {"source": "broken-1"}),
            client.call_tool("convert_repo", {"source": "broken-2"}),
        )
        assert [r.data["status"] for r in failed] == ["failed", "failed"]
        assert running["most"] == 1  # max_concurrent_conversions


async def _instance(client: Client[Any], server: str) -> str:
    result = await client.call_tool("call_generated", {"server": server, "tool": "instance"})
    value: str = result.data
    return value


async def test_versions_run_side_by_side_and_a_replaced_one_is_restarted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "calc", version="old", commit="a" * 40)
    register_fake(settings, "calc", version="new", commit="b" * 40)

    async def fake_convert(source: str, *, settings: Settings, **_: Any) -> ConversionReport:
        # A re-conversion of the newest commit: it replaces version "new" (and, as the
        # register stage does, deletes its files once the new one is committed).
        registry = Registry(settings.registry_path)
        registration = registry.register(fake_record(settings, "calc", "newer", "b" * 40))
        discard_files(settings, registration.replaced, registry)
        return ConversionReport(server="calc", source=source, status="success", tools_passed=6)

    monkeypatch.setattr("metaserver.pipeline.convert", fake_convert)
    async with Client(build_server(settings), mode="legacy") as client:
        [listed] = (await client.call_tool("list_servers", {})).data
        assert listed["latest"] == "new"
        assert [v["version"] for v in listed["versions"]] == ["new", "old"]

        # The old version and the newest one, called at once: two children.
        old, new = await asyncio.gather(_instance(client, "calc@old"), _instance(client, "calc"))
        assert old != new
        assert (await client.call_tool("calc_instance", {})).data == new  # direct: the newest
        assert await _instance(client, "calc@new") == new
        assert server_pids(settings.servers_dir / "calc-old")
        assert server_pids(settings.servers_dir / "calc-new")
        missing = await client.call_tool(
            "call_generated", {"server": "calc@nope", "tool": "add"}, raise_on_error=False
        )
        assert missing.is_error and "no version 'nope'" in _text(missing)

        # Re-registered: the replaced version's child is stopped and its files deleted; the
        # newest gets a child of its own, and the old version keeps its child.
        await client.call_tool("convert_repo", {"source": "pypi:calc"})
        assert server_pids(settings.servers_dir / "calc-new") == []
        assert not (settings.servers_dir / "calc-new").exists()
        newer = await _instance(client, "calc")
        assert newer not in (old, new)
        assert (await client.call_tool("calc_instance", {})).data == newer
        assert await _instance(client, "calc@old") == old

        removed = (await client.call_tool("remove_server", {"server": "calc@old"})).data
        assert removed["versions"] == ["old"] and removed["remaining"] == ["newer"]
        assert not (settings.servers_dir / "calc-old").exists()
        assert server_pids(settings.servers_dir / "calc-old") == []
        assert await _instance(client, "calc") == newer


async def test_restart_restores_mounts_and_registry_is_reread(home_settings: Settings) -> None:
    async with Client(build_server(home_settings), mode="legacy") as client:
        assert (await client.call_tool("alpha_add", {"a": 1, "b": 2})).data == 3
    async with Client(build_server(home_settings), mode="legacy") as client:
        assert "alpha_add" in await _tool_names(client)
        assert (await client.call_tool("alpha_add", {"a": 3, "b": 4})).data == 7
        # Registered by "another process" while serving: listed without a restart.
        register_fake(home_settings, "gamma")
        assert "gamma_split_words" in await _tool_names(client)
        words = await client.call_tool("gamma_split_words", {"text": "p q"})
        assert words.data == ["p", "q"]


async def test_direct_tools_can_be_turned_off(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home", expose_direct_tools=False)
    register_fake(settings, "alpha")
    async with Client(build_server(settings), mode="legacy") as client:
        assert await _tool_names(client) == set(META_TOOLS)
        called = await client.call_tool(
            "call_generated", {"server": "alpha", "tool": "add", "arguments": {"a": 1, "b": 1}}
        )
        assert called.data == 2


async def test_serves_over_stdio(home_settings: Settings) -> None:
    code = (
        "import asyncio; from metaserver.settings import Settings; "
        "from metaserver.server.app import run; "
        "asyncio.run(run(Settings(), 'stdio', '127.0.0.1', 0))"
    )
    env = {**os.environ, "METASERVER_HOME": str(home_settings.home)}
    env.update({"METASERVER_TIMEOUTS__TOOL_CALL": "10"})
    transport = StdioTransport(command=sys.executable, args=["-c", code], env=env, keep_alive=False)
    recorder = Recorder()
    async with Client(transport, mode="legacy", message_handler=recorder) as client:
        assert {"alpha_add", *META_TOOLS} <= await _tool_names(client)
        assert (await client.call_tool("alpha_add", {"a": 5, "b": 6})).data == 11
        called = await client.call_tool(
            "call_generated", {"server": "alpha", "tool": "split_words", "arguments": {"text": "a"}}
        )
        assert called.data == ["a"]
        await client.call_tool("remove_server", {"server": "alpha"})
        await recorder.wait()
        assert "alpha_add" not in await _tool_names(client)


@pytest.fixture
async def http_server(home_settings: Settings) -> AsyncIterator[tuple[str, str]]:
    token = "s3cret-token"
    settings = Settings.model_validate({**home_settings.model_dump(), "auth": {"token": token}})
    async with serving_http(settings) as url:
        yield url, token


async def test_http_requires_the_token_and_checks_host_and_origin(
    http_server: tuple[str, str],
) -> None:
    url, token = http_server
    body = INITIALIZE
    accept = ACCEPT
    bearer = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=10) as http:
        missing = await http.post(url, json=body, headers=accept)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].lower().startswith("bearer")
        assert missing.json()["error"] == "missing bearer token"
        wrong = await http.post(url, json=body, headers={**accept, "Authorization": "Bearer no"})
        assert wrong.status_code == 401
        assert wrong.json()["error"] == "invalid bearer token"
        # A static token has no authorization server: nothing may send a client looking
        # for one (resource metadata, talk of re-registering OAuth tokens).
        for answer in (missing, wrong):
            challenge = answer.headers["www-authenticate"]
            assert "resource_metadata" not in challenge and "register" not in challenge
            assert "register" not in answer.text and token not in answer.text
        discovery = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        assert (await http.get(discovery)).status_code == 404
        host = await http.post(url, json=body, headers={**accept, **bearer, "Host": "evil.example"})
        assert 400 <= host.status_code < 500
        origin = {**accept, **bearer, "Origin": "http://evil.example"}
        assert (await http.post(url, json=body, headers=origin)).status_code == 403
        good = await http.post(url, json=body, headers={**accept, **bearer})
        assert good.status_code == 200

    async with Client(url, auth=token) as client:
        assert "alpha_add" in await _tool_names(client)
        assert (await client.call_tool("alpha_add", {"a": 1, "b": 2})).data == 3
    with pytest.raises(Exception):  # noqa: B017 - the client reports a 401 generically
        async with Client(url, auth="wrong") as client:
            await client.list_tools()


async def test_non_loopback_http_without_token_is_refused(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    for host in ("0.0.0.0", "192.168.1.10", "example.com", "::"):
        with pytest.raises(UserError, match="without authentication"):
            await run(settings, "http", host, free_port())
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("[::1]") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("localhost.evil.example")
