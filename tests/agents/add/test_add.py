"""Existing MCP servers join the registry: a real FastMCP server over stdio (sandboxed) and
over streamable HTTP, listed through a real MCP client, searched, called, removed; and every
way an add is refused, each leaving nothing registered and no directory behind."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from added_servers import BAD_SCHEMA_SCRIPT, UNITS_TOOLS, free_port, http_server, write_script

from metaserver.agents.add.add import add_server
from metaserver.agents.add.endpoint import http_endpoint, stdio_endpoint
from metaserver.children.oneshot import call_tool
from metaserver.children.pool import ChildPool
from metaserver.exceptions import NameTakenError, UserError
from metaserver.registry import Registry
from metaserver.registry.files import unregister
from metaserver.registry.search import search_tools
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

API_KEY = "units-key-7d1e9b"


def _nothing_left(settings: Settings) -> bool:
    servers = settings.servers_dir
    return not Registry(settings.registry_path).list_servers() and (
        not servers.exists() or not any(servers.iterdir())
    )


@pytest.fixture
def script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "third-party")


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host's loopback that accepts connections."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


async def test_a_stdio_server_is_added_sandboxed_found_called_and_removed(
    settings: Settings, script: Path, listener: int
) -> None:
    record = await add_server(settings, "units", stdio_endpoint([sys.executable, str(script)]))
    assert record.kind == "added" and {t.name for t in record.tools} >= UNITS_TOOLS
    registry = Registry(settings.registry_path)
    stored = registry.get("units")
    assert stored.endpoint is not None and stored.endpoint.command == [sys.executable, str(script)]
    assert [s.listing()["kind"] for s in registry.summaries()] == ["added"]

    hits = search_tools(registry, "how many miles is a distance given in kilometres", limit=3)
    assert (hits[0].server, hits[0].tool) == ("units", "kilometres_to_miles")

    pool = ChildPool(settings)
    try:
        result = await pool.call(stored, "celsius_to_fahrenheit", {"celsius": 100})
        assert not result.is_error and result.structured_content == {"result": 212.0}
        # Sandboxed: no network of its own, so the host's loopback listener is out of reach.
        reach = await pool.call(stored, "can_connect", {"host": "127.0.0.1", "port": listener})
        assert reach.structured_content == {"result": False}
    finally:
        await pool.close()
    assert await call_tool(settings, "units", "kilograms_to_pounds", {"kilograms": 1}) == (
        True,
        2.204623,
    )

    removed = unregister(settings, "units")
    assert [r.name for r in removed] == ["units"]
    assert not record.output_dir.exists() and _nothing_left(settings)


async def test_allow_network_gives_the_stdio_server_the_hosts_network(
    settings: Settings, script: Path, listener: int
) -> None:
    endpoint = stdio_endpoint([sys.executable, str(script)], allow_network=True)
    await add_server(settings, "netunits", endpoint)
    ok, reached = await call_tool(
        settings, "netunits", "can_connect", {"host": "127.0.0.1", "port": listener}
    )
    assert ok and reached is True


async def test_an_http_server_is_added_with_its_secret_header(
    settings: Settings, script: Path
) -> None:
    with http_server(script, api_key=API_KEY) as url:
        # Without the key the server answers 401: refused, nothing registered.
        with pytest.raises(UserError, match="did not answer initialize"):
            await add_server(settings, "remote", http_endpoint(url))
        assert _nothing_left(settings)
        # A wrong key is refused too, and the error does not repeat it.
        wrong = "wrong-key-0c5f"
        with pytest.raises(UserError) as caught:
            await add_server(settings, "remote", http_endpoint(url, {"X-Api-Key": wrong}))
        assert wrong not in str(caught.value) and _nothing_left(settings)

        record = await add_server(settings, "remote", http_endpoint(url, {"X-Api-Key": API_KEY}))
        assert record.source == url and {t.name for t in record.tools} >= UNITS_TOOLS
        registry = Registry(settings.registry_path)
        hits = search_tools(registry, "convert a temperature to fahrenheit", limit=3)
        assert (hits[0].server, hits[0].tool) == ("remote", "celsius_to_fahrenheit")
        pool = ChildPool(settings)
        try:
            result = await pool.call(
                registry.get("remote"), "kilometres_to_miles", {"kilometres": 1.609344}
            )
            assert result.structured_content == {"result": 1.0}
            # One standing session, kept for the next call.
            assert pool.is_alive(record.ref)
        finally:
            await pool.close()
        assert await call_tool(settings, "remote", "celsius_to_fahrenheit", {"celsius": 0}) == (
            True,
            32.0,
        )
    # The key is kept (a restart calls with it) in a file only its owner may read.
    endpoint = Registry(settings.registry_path).get("remote").endpoint
    assert endpoint is not None and endpoint.headers["X-Api-Key"].get_secret_value() == API_KEY
    assert settings.registry_path.stat().st_mode & 0o077 == 0


async def test_refused_servers_leave_nothing(settings: Settings, tmp_path: Path) -> None:
    # A command that is no MCP server fails initialize.
    with pytest.raises(UserError, match="did not answer initialize"):
        await add_server(settings, "silent", stdio_endpoint(["true"]))
    assert _nothing_left(settings)
    # A server whose tool schema is no JSON Schema.
    bad = write_script(tmp_path / "bad", BAD_SCHEMA_SCRIPT, "bad_server.py")
    with pytest.raises(UserError, match="invalid input schema"):
        await add_server(settings, "bad", stdio_endpoint([sys.executable, str(bad)]))
    assert _nothing_left(settings)
    # Nothing listens there.
    unreachable = http_endpoint(f"http://127.0.0.1:{free_port()}/mcp")
    with pytest.raises(UserError, match="did not answer initialize"):
        await add_server(settings, "gone", unreachable)
    assert _nothing_left(settings)
    with pytest.raises(UserError, match="invalid server name"):
        await add_server(settings, "Bad Name", unreachable)


async def test_a_taken_name_is_refused(settings: Settings, script: Path) -> None:
    with http_server(script) as url:
        await add_server(settings, "units", http_endpoint(url))
        with pytest.raises(NameTakenError, match="registered already"):
            await add_server(settings, "units", http_endpoint(url))
    assert [r.name for r in Registry(settings.registry_path).list_servers()] == ["units"]
    assert len(list(settings.servers_dir.iterdir())) == 1


async def test_a_conversion_never_becomes_a_version_of_an_added_server(
    settings: Settings, script: Path, tmp_path: Path
) -> None:
    from fixture_repos import make_calc_repo

    from metaserver.pipeline import convert

    with http_server(script) as url:
        added = await add_server(settings, "units", http_endpoint(url))
    # Named on the command line: refused before anything is fetched.
    calc = make_calc_repo(tmp_path / "calc")
    with pytest.raises(NameTakenError, match="added with `metaserver add`"):
        await convert(f"file://{calc}", settings=settings, name="units")
    # Named after the distribution: refused once the name is known, the fetched tree removed.
    same = make_calc_repo(tmp_path / "units-repo", name="units", package="units")
    with pytest.raises(NameTakenError, match="--name"):
        await convert(f"file://{same}", settings=settings)
    assert not settings.staging_dir.exists() or not any(settings.staging_dir.iterdir())
    assert not settings.workspaces_dir.exists() or not any(settings.workspaces_dir.iterdir())
    # The registry refuses it too, under its write lock, whoever asks.
    registry = Registry(settings.registry_path)
    converted = added.model_copy(update={"kind": "converted", "endpoint": None, "version_id": None})
    with pytest.raises(NameTakenError, match="as an added server"):
        registry.register(converted)
    stored = registry.get("units")
    assert stored.kind == "added" and stored.version_id == added.version_id
