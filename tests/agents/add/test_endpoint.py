"""What ``metaserver add`` accepts, refused before anything runs; no message repeats a
header value."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from metaserver.agents.add.endpoint import header_map, http_endpoint, stdio_endpoint
from metaserver.exceptions import UserError

SECRET = "s3cr3t-value-never-shown"


def test_an_executable_on_path_is_stored_absolute() -> None:
    endpoint = stdio_endpoint(["sh", "-c", "true"], allow_network=True)
    assert endpoint.transport == "stdio" and endpoint.allow_network
    assert Path(endpoint.command[0]).is_absolute() and Path(endpoint.command[0]).name == "sh"
    assert endpoint.command[1:] == ["-c", "true"]


@pytest.mark.parametrize("command", [[], [""], ["no-such-command-4f2a"], ["/no/such/file"]])
def test_a_missing_command_is_refused(command: list[str]) -> None:
    with pytest.raises(UserError):
        stdio_endpoint(command)


def test_a_file_that_is_not_executable_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text("print()\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    with pytest.raises(UserError, match="not an executable file"):
        stdio_endpoint([str(script)])


def test_a_relative_file_argument_is_refused_with_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "server.py").write_text("")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="absolute path") as caught:
        stdio_endpoint(["python3", "server.py"])
    assert str(tmp_path / "server.py") in str(caught.value)
    # An argument that names nothing here is passed on unchanged.
    assert stdio_endpoint(["python3", "-m", "server"]).command[1:] == ["-m", "server"]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.org/mcp", r"http:// or https:// \(its scheme is 'ftp'\)"),
        ("file:///etc/passwd", "http:// or https://"),
        ("example.org/mcp", r"http:// or https:// \(it has no scheme\)"),
        ("http:///mcp", "no host"),
        ("https://user:pw@example.org/mcp", "credentials"),
        ("http://example.org:99999/mcp", "invalid URL"),
        ("http://example.org/m cp", "whitespace"),
    ],
)
def test_bad_urls_are_refused(url: str, why: str) -> None:
    with pytest.raises(UserError, match=why):
        http_endpoint(url)


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ([f"Authorization {SECRET}"], "'Name: value'"),
        ([f": {SECRET}"], "'Name: value'"),
        ([f"Bad Name: {SECRET}"], "invalid header name"),
        ([f"Content-Type: {SECRET}"], "MCP transport"),
        ([f"X-Key: {SECRET}", f"x-key: {SECRET}"], "twice"),
    ],
)
def test_bad_headers_are_refused_without_their_values(headers: list[str], why: str) -> None:
    with pytest.raises(UserError, match=why) as caught:
        http_endpoint("https://example.org/mcp", header_map(headers))
    assert SECRET not in str(caught.value)


def test_a_value_with_a_line_break_is_refused_without_the_value() -> None:
    with pytest.raises(UserError, match="line break") as caught:
        http_endpoint("https://example.org/mcp", {"X-Key": f"{SECRET}\r\nHost: evil"})
    assert SECRET not in str(caught.value)


def test_header_values_are_stored_but_never_shown() -> None:
    endpoint = http_endpoint(
        "https://example.org/mcp", header_map([f"Authorization: Bearer {SECRET}"])
    )
    assert endpoint.stored()["headers"] == {"Authorization": f"Bearer {SECRET}"}
    assert endpoint.public()["headers"] == ["Authorization"]
    for shown in (repr(endpoint), str(endpoint), endpoint.model_dump_json()):
        assert SECRET not in shown


def test_the_current_directory_is_where_relative_executables_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = tmp_path / "bin" / "server"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert stdio_endpoint(["./bin/server"]).command == [os.fspath(tool)]
