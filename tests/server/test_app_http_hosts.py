"""The meta-server's HTTP transport behind other names: METASERVER_HTTP__ALLOWED_HOSTS lets a
remote client with the token through a 0.0.0.0 bind while any other Host (DNS rebinding)
stays refused; tokens a bearer header cannot carry are refused before anything serves."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fake_children import fast_settings, register_fake
from serving import ACCEPT, INITIALIZE, serving_http

from metaserver.cli import main
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

TOKEN = "s3cret-token"


def _settings(tmp_path: Path, allowed_hosts: list[str]) -> Settings:
    home = fast_settings(tmp_path / "home")
    register_fake(home, "alpha")
    return Settings.model_validate(
        {
            **home.model_dump(),
            "auth": {"token": TOKEN},
            "http": {"allowed_hosts": allowed_hosts},
        }
    )


async def _post(url: str, host: str, token: str | None = TOKEN, **extra: str) -> httpx.Response:
    headers = {**ACCEPT, "Host": host, **extra}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=10) as http:
        return await http.post(url, json=INITIALIZE, headers=headers)


async def test_a_listed_host_reaches_a_wildcard_bind_and_others_stay_refused(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path, ["mcp.example.com", "*.corp.example"])
    async with serving_http(settings, bind="0.0.0.0") as url:
        port = url.split(":")[2].split("/")[0]
        remote = f"mcp.example.com:{port}"
        answer = await _post(url, remote)
        assert answer.status_code == 200, answer.text
        assert "metaserver" in answer.text  # a real initialize result, serverInfo included
        assert (await _post(url, f"box.corp.example:{port}")).status_code == 200
        # A browser page of the same name is same-origin; another origin is not.
        same = await _post(url, remote, Origin=f"http://{remote}")
        assert same.status_code == 200
        foreign = await _post(url, remote, Origin="http://evil.example")
        assert foreign.status_code == 403
        # The token is still required of a listed host.
        assert (await _post(url, remote, token=None)).status_code == 401
        # DNS rebinding: a name that is not listed (resolving to this machine) gets 421.
        for host in (f"evil.example:{port}", "example.com", "corp.example", "mcp.example.com.evil"):
            assert (await _post(url, host)).status_code == 421, host


async def test_without_allowed_hosts_only_loopback_names_are_accepted(tmp_path: Path) -> None:
    async with serving_http(_settings(tmp_path, []), bind="0.0.0.0") as url:
        port = url.split(":")[2].split("/")[0]
        assert (await _post(url, f"mcp.example.com:{port}")).status_code == 421
        assert (await _post(url, f"localhost:{port}")).status_code == 200


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("METASERVER_AUTH__TOKEN", "   ", "only whitespace"),
        ("METASERVER_AUTH__TOKEN", "two words", "whitespace or control"),
        ("METASERVER_HTTP__ALLOWED_HOSTS", "*", "DNS-rebinding"),
        ("METASERVER_HTTP__ALLOWED_HOSTS", "https://mcp.example.com/", "host[:port]"),
        ("METASERVER_HTTP__ALLOWED_HOSTS", '["unclosed', "Unterminated string"),
    ],
)
def test_serve_refuses_settings_it_cannot_honour(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    says: str,
) -> None:
    monkeypatch.setenv("METASERVER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(variable, value)
    code = main(["serve", "--transport", "http", "--host", "0.0.0.0", "--port", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert says in err and variable in err
    assert "Traceback" not in err
    assert "two words" not in err  # the token itself is never echoed
