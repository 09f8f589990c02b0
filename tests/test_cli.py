"""The command line as a user runs it: real processes, a real fixture repository."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_repos import make_calc_repo
from serving import INITIALIZE

from metaserver.cli import main

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def run_cli(home: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend  # the backend under test
    env["METASERVER_HOME"] = str(home)
    return subprocess.run(
        [METASERVER, *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def run_session(home: Path, server: str) -> list[Any]:
    """A `metaserver run` session: a truncated line, then initialize; what each was answered
    (an error code, or the server's name)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    process = subprocess.Popen(
        [METASERVER, "run", server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    answers: list[Any] = []
    try:
        for line in (json.dumps(INITIALIZE)[:30], json.dumps(INITIALIZE)):
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 120)
            assert ready, "no answer within 120 s"
            answer = json.loads(process.stdout.readline())
            answers.append(answer["error"]["code"] if "error" in answer else None)
            if "result" in answer:
                answers[-1] = answer["result"]["serverInfo"]["name"]
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
    return answers


def home_is_empty(home: Path) -> bool:
    return not home.exists() or not any(home.rglob("*"))


@pytest.mark.parametrize(
    "source",
    [
        "/definitely/not/here",
        "; rm -rf /",
        "--upload-pack=x",
        "ext::sh -c id",
        "pypi:metaserver-no-such-package-4f9c2",
    ],
)
def test_bad_sources_exit_2_and_leave_nothing(tmp_path: Path, source: str) -> None:
    home = tmp_path / "home"
    # "--" so that the source itself, not argparse, has to refuse "--upload-pack=x".
    result = run_cli(home, "convert", "--json", "--", source)
    assert result.returncode == 2, result.stderr
    message = result.stderr.strip().splitlines()
    assert message and message[-1].startswith("metaserver: ")
    # --json: stdout is a JSON error object saying the same.
    error = json.loads(result.stdout)
    assert error["status"] == "error" and error["exit_code"] == 2
    assert error["error"] and message[-1] == f"metaserver: {error['error']}"
    assert home_is_empty(home)


def test_directory_without_python_package_exits_2(tmp_path: Path) -> None:
    empty = tmp_path / "not-a-package"
    empty.mkdir()
    (empty / "notes.txt").write_text("no code here\n")
    home = tmp_path / "home"
    result = run_cli(home, "convert", str(empty))
    assert result.returncode == 2
    assert "no python" in result.stderr.lower()
    assert home_is_empty(home)


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    assert run_cli(tmp_path / "home", "convert").returncode == 2
    assert run_cli(tmp_path / "home", "frobnicate").returncode == 2
    result = run_cli(tmp_path / "home", "call", "nothing", "tool", "{}")
    assert result.returncode == 2 and "no registered server" in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("call", "s", "t", "[" * 10_000 + "]" * 10_000), "nested too deeply"),
        (("call", "s", "t", '{"a":' * 10_000 + "1" + "}" * 10_000), "nested too deeply"),
        (("call", "s", "t", '{"a": NaN}'), "NaN"),
        (("call", "s", "t", '{"a": 1e999999}'), "not a finite number"),
        (("call", "s", "t", '{"a": '), "not valid JSON"),
        (("call", "s", "t", "[1]"), "must be a JSON object"),
        (("serve", "--transport", "http", "--port", "99999"), "not a port number"),
        (("serve", "--transport", "http", "--port", "x"), "not a port number"),
    ],
)
def test_odd_input_ends_in_a_message_not_a_traceback(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    result = run_cli(tmp_path / "home", *args, timeout=60)
    assert result.returncode == 2, result.stderr[-2000:]
    assert says in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_an_unforeseen_failure_is_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The last resort of main(): whatever escapes a command is one line, exit 1."""

    def broken(*_: object) -> int:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setenv("METASERVER_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("metaserver.cli._list", broken)
    assert main(["list", "--json"]) == 1
    captured = capsys.readouterr()
    assert "internal error: ZeroDivisionError: division by zero" in captured.err
    assert "Traceback" not in captured.err
    assert json.loads(captured.out)["exit_code"] == 1


@pytest.mark.integration
def test_convert_call_list_remove_fixture_repository(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"

    converted = run_cli(home, "convert", f"file://{repo}", "--json")
    assert converted.returncode == 0, converted.stderr
    report = json.loads(converted.stdout)
    assert report["status"] == "success"
    assert report["server"] == "calcpack"
    assert len(report["commit"]) == 40
    expected_checks = [
        t
        for t in report["tools"]
        if t["status"] == "passed" and t["evidence"]["check"] == "expected-value"
    ]
    assert len(expected_checks) >= 3
    assert report["tools_passed"] == len([t for t in report["tools"] if t["status"] == "passed"])
    stages = {"fetch", "environment", "analysis", "design", "generate", "validate", "total"}
    assert set(report["seconds"]) >= stages
    output = Path(report["output_dir"])
    for name in ("server.py", "tools.json", "README.md", "mcp.json", "tests/test_tools.py"):
        assert (output / name).exists(), name

    # A new process, after the converting one exited, finds and calls the server.
    called = run_cli(home, "call", "calcpack", "add", '{"a": 40, "b": 2}', "--json")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == 42
    fib = run_cli(home, "call", "calcpack", "fibonacci", '{"n": 5}', "--json")
    assert json.loads(fib.stdout) == [0, 1, 1, 2, 3]

    listed = run_cli(home, "list", "--json")
    servers = json.loads(listed.stdout)
    assert [s["name"] for s in servers] == ["calcpack"]
    assert servers[0]["bytes"] > 1_000_000  # its server and environment, measured at registration
    assert {"add", "fibonacci", "slugify"} <= {t["name"] for t in servers[0]["tools"]}
    # One version, named after the output directory's token; callable by name@version.
    [version] = servers[0]["versions"]
    assert output.name == f"calcpack-{version['version']}" == f"calcpack-{servers[0]['latest']}"
    assert version["commit"] == report["commit"] and version["tools"] == report["tools_passed"]
    pinned = run_cli(home, "call", f"calcpack@{version['version']}", "add", '{"a": 1, "b": 2}')
    assert pinned.returncode == 0 and pinned.stdout.strip() == "3", pinned.stderr
    unknown_version = run_cli(home, "call", "calcpack@nope", "add", '{"a": 1, "b": 2}')
    assert unknown_version.returncode == 2 and "no version 'nope'" in unknown_version.stderr
    assert run_cli(home, "remove", "calcpack@nope").returncode == 2
    assert report["changes"] is None  # a first conversion changes nothing

    # Schema violations are refused before the call, as an error result (exit 1).
    wrong = run_cli(home, "call", "calcpack", "add", '{"a": "forty"}')
    assert wrong.returncode == 1
    unknown_tool = run_cli(home, "call", "calcpack", "nope", "{}")
    assert unknown_tool.returncode == 2

    # `metaserver run` (what mcp.json starts) answers a bad line as `serve` does, then serves.
    assert run_session(home, "calcpack") == [-32700, "calcpack"]

    removed = run_cli(home, "remove", "calcpack")
    assert removed.returncode == 0
    assert json.loads(run_cli(home, "list", "--json").stdout) == []
    assert not output.exists()
    # Every file of the version goes with it: server, environment, workspace.
    for parent in ("servers", "environments", "workspaces"):
        assert not [p for p in (home / parent).iterdir() if "calcpack" in p.name], parent


@pytest.mark.integration
def test_add_list_call_remove_an_http_server(tmp_path: Path) -> None:
    from added_servers import http_server, write_script

    home = tmp_path / "home"
    secret = "cli-key-93ab1f"
    script = write_script(tmp_path / "third-party")
    with http_server(script, api_key=secret) as url:
        added = run_cli(home, "add", "units", "--url", url, "--header", f"X-Api-Key: {secret}")
        assert added.returncode == 0, added.stderr
        assert "units_celsius_to_fahrenheit" in added.stdout
        listed = run_cli(home, "list", "--json")
        servers = json.loads(listed.stdout)
        assert [(s["name"], s["kind"]) for s in servers] == [("units", "added")]
        assert servers[0]["endpoint"]["headers"] == ["X-Api-Key"]
        text = run_cli(home, "list")
        for output in (added, listed, text):
            assert secret not in output.stdout + output.stderr
        called = run_cli(home, "call", "units", "kilometres_to_miles", '{"kilometres": 1.609344}')
        assert called.returncode == 0 and called.stdout.strip() == "1.0", called.stderr
        again = run_cli(home, "add", "units", "--url", url)
        assert again.returncode == 2 and "registered already" in again.stderr
    assert run_cli(home, "remove", "units").returncode == 0
    assert json.loads(run_cli(home, "list", "--json").stdout) == []


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("add", "x"), "either -- COMMAND"),
        (("add", "x", "--url", "http://127.0.0.1:9/mcp", "--", "true"), "either -- COMMAND"),
        (("add", "Bad", "--", "true"), "invalid server name"),
        (("add", "x", "--", "no-such-command-4f2a"), "not found on PATH"),
        (("add", "x", "--url", "ftp://example.org/mcp"), "http:// or https://"),
        (("add", "x", "--url", "http://127.0.0.1:9/mcp", "--header", "NoColon"), "Name: value"),
        (("add", "x", "--header", "A: b", "--", "true"), "--header is for an HTTP server"),
        (("add", "x", "--url", "http://127.0.0.1:9/mcp"), "did not answer initialize"),
        (("add", "x", "--", "true"), "did not answer initialize"),
        (("add", "x", "--allow-network", "--", "true", "-x"), "did not answer initialize"),
    ],
)
def test_add_refusals_exit_2_and_leave_nothing_registered(
    tmp_path: Path, args: tuple[str, ...], why: str
) -> None:
    home = tmp_path / "home"
    result = run_cli(home, *args)
    assert result.returncode == 2 and why in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (home / "servers").exists() or not any((home / "servers").iterdir())
    listed = run_cli(home, "list", "--json")
    assert json.loads(listed.stdout) == []
