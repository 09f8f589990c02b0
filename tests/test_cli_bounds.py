"""Bad input and bad settings on the command line: exit 2, one line that names what is wrong,
and nothing left in the home (issue 28, items 2, 6 and 7). Real `metaserver` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo

pytestmark = pytest.mark.integration

METASERVER = str(Path(sys.executable).with_name("metaserver"))


def home_is_empty(home: Path) -> bool:
    return not home.exists() or not any(home.rglob("*"))


def run(
    home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        environ["METASERVER_SANDBOX__BACKEND"] = backend
    environ["METASERVER_HOME"] = str(home)
    environ.update(env or {})
    return subprocess.run(
        [METASERVER, *args], capture_output=True, text=True, env=environ, timeout=timeout
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line the failure printed (asserting it is one, and no traceback)."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr[-2000:]
    # Progress logs ("INFO metaserver.pipeline: conversion: fetch") are not the message.
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("INFO ")]
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("metaserver: ")
    return lines[0]


def test_batch_file_that_never_ends_is_refused_unread(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = run(home, "batch", "/dev/zero", timeout=30)
    assert result.returncode == 2
    assert "is not a regular file" in one_line(result)
    assert home_is_empty(home)


def test_batch_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "sources"
    os.mkfifo(fifo)
    home = tmp_path / "home"
    result = run(home, "batch", str(fifo), timeout=30)  # a hang is a TimeoutExpired
    assert result.returncode == 2
    assert "is not a regular file" in one_line(result)
    assert home_is_empty(home)


def test_batch_file_too_large_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "sources.txt"
    with big.open("wb") as file:
        file.truncate(17 * 1024 * 1024)  # sparse: no disk used
    home = tmp_path / "home"
    result = run(home, "batch", str(big))
    assert result.returncode == 2
    assert "is larger than 16 MiB" in one_line(result)
    assert home_is_empty(home)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ('{"a": ' + "[" * 2000 + "]" * 2000 + "}", "nested too deeply"),
        ('{"n": ' + "9" * 5000 + "}", "a number longer than 1000 characters"),
        ('{"n": -' + "1" * 1001 + "}", "a number longer than 1000 characters"),
        ('{"x": [Infinity]}', "Infinity, which is not JSON"),
    ],
)
def test_json_args_past_the_bounds_exit_2(tmp_path: Path, arguments: str, says: str) -> None:
    home = tmp_path / "home"
    result = run(home, "call", "s", "t", arguments)
    assert result.returncode == 2
    assert says in one_line(result)
    assert home_is_empty(home)


def test_json_args_within_the_bounds_reach_the_registry(tmp_path: Path) -> None:
    """Deep (100 levels), long-numbered (1000 digits) arguments are read: the call fails
    only because no server is registered."""
    home = tmp_path / "home"
    arguments = '{"a": ' + "[" * 99 + "]" * 99 + ', "n": ' + "7" * 1000 + "}"
    result = run(home, "call", "nothing", "t", arguments)
    assert result.returncode == 2
    assert "no registered server" in one_line(result)


def test_list_query_too_long_exits_2(tmp_path: Path) -> None:
    result = run(tmp_path / "home", "list", "--query", "word " * 1000)
    assert result.returncode == 2
    assert "--query is longer than 2000 characters" in one_line(result)


def test_bundle_output_a_regular_file_exits_2(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    output = tmp_path / "bundle.out"
    output.write_text("not a directory\n")
    home = tmp_path / "home"
    result = run(home, "bundle", str(repo), "--output", str(output))
    assert result.returncode == 2
    assert f"--output {output} is not a directory" in one_line(result)
    assert output.read_text() == "not a directory\n"
    assert home_is_empty(home)


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("METASERVER_HOME", "/dev/null", "METASERVER_HOME: /dev/null is not a directory"),
        ("METASERVER_HOME", "/dev/null/home", "is under /dev/null, which is not a directory"),
        ("METASERVER_PYTHON", "/bin/sh", "METASERVER_PYTHON: /bin/sh is not a Python"),
        ("METASERVER_PYTHON", "/no/such/python", "is not an executable file"),
        ("METASERVER_INDEX__URL", "notaurl", "METASERVER_INDEX__URL: the value is not a URL"),
        ("METASERVER_LLM__BASE_URL", "localhost:8000", "METASERVER_LLM__BASE_URL: the value"),
        ("METASERVER_TIMEOUTS__TOOL_CALL", "inf", "TIMEOUTS__TOOL_CALL: Input should be a finite"),
        ("METASERVER_TIMEOUTS__FETCH", "nan", "TIMEOUTS__FETCH: Input should be a finite"),
        ("METASERVER_SANDBOX__BWRAP", "/etc/passwd", "/etc/passwd is not an executable"),
    ],
)
def test_bad_settings_exit_2_at_start(tmp_path: Path, variable: str, value: str, says: str) -> None:
    home = tmp_path / "home"
    result = run(home, "list", env={variable: value})
    assert result.returncode == 2
    line = one_line(result)
    assert line.startswith("metaserver: invalid settings: ") and says in line, line
    assert home_is_empty(home)


def test_unknown_setting_is_warned_about(tmp_path: Path) -> None:
    result = run(
        tmp_path / "home",
        "list",
        env={"METASERVER_TIMEOUT__TOOL_CALL": "5", "METASERVER_TIMEOUTS__TOOL_CALL": "5"},
    )
    assert result.returncode == 0
    warned = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warned == [
        "metaserver: warning: METASERVER_TIMEOUT__TOOL_CALL is not a setting; it is ignored"
    ]


def test_fake_bwrap_exits_2_and_leaves_nothing(tmp_path: Path) -> None:
    """A binary that exits 0 without running anything is no bubblewrap: refused before the
    fetch, so no workspace, environment or staging file is left."""
    repo = make_calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    result = run(
        home,
        "convert",
        str(repo),
        env={"METASERVER_SANDBOX__BACKEND": "bwrap", "METASERVER_SANDBOX__BWRAP": "/bin/true"},
    )
    assert result.returncode == 2
    assert "exits 0 without running the command" in one_line(result)
    assert home_is_empty(home)


def test_add_url_answering_non_json_is_one_line(tmp_path: Path) -> None:
    import http.server
    import threading

    class NotJSON(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = b"hello, not JSON"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotJSON)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = tmp_path / "home"
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
        result = run(home, "add", "x", "--url", url)
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 2
    line = one_line(result)
    assert "did not answer initialize and tools/list: Invalid JSON" in line, line
    assert "errors.pydantic.dev" not in line
    assert not (home / "servers").exists() or not any((home / "servers").iterdir())


@pytest.mark.parametrize("member", ["/abs/pkg/__init__.py", "pkg/../../evil.py"])
def test_archive_with_unsafe_members_exits_2_and_leaves_nothing(
    tmp_path: Path, member: str
) -> None:
    import io
    import tarfile

    archive = tmp_path / "crafted-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in (("crafted-1.0/pyproject.toml", "[project]\nname='c'\n"), (member, "")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text.encode()))
    home = tmp_path / "home"
    result = run(home, "convert", str(archive))
    assert result.returncode == 2
    assert f"unsafe member in crafted-1.0.tar.gz: {member!r}" in one_line(result)
    assert home_is_empty(home)
    assert not list(tmp_path.rglob("evil.py"))


@pytest.mark.parametrize(
    ("name", "size", "says"),
    [
        ("empty-1.0.tar.gz", 0, "could not unpack empty-1.0.tar.gz: "),
        ("noise-1.0.zip", 2048, "could not unpack noise-1.0.zip: "),
        ("big-1.0.tar.gz", 513 * 1024 * 1024, "big-1.0.tar.gz is larger than 512 MiB"),
    ],
)
def test_archive_that_cannot_be_unpacked_exits_2_and_leaves_nothing(
    tmp_path: Path, name: str, size: int, says: str
) -> None:
    """A local archive SOURCE that is damaged, no archive or too large is a bad source, said
    in one line (tarfile lists each method it tried on a line of its own), not a failed
    conversion."""
    archive = tmp_path / name
    with archive.open("wb") as file:
        file.write(bytes(range(256)) * (min(size, 2048) // 256))
        file.truncate(size)  # sparse past its first bytes: no disk used
    home = tmp_path / "home"
    result = run(home, "convert", str(archive))
    assert result.returncode == 2
    assert says in one_line(result)
    assert home_is_empty(home)


@pytest.mark.parametrize("name", ["../../../escaped", "a/b", "x" * 300])
def test_remove_of_a_name_no_server_can_have_exits_2_and_makes_nothing(
    tmp_path: Path, name: str
) -> None:
    """The name reached the server lock's file name: ``../../../escaped`` made
    ``escaped.lock`` outside the home, ``a/b`` and a long name were internal errors."""
    home = tmp_path / "deep" / "er" / "home"
    result = run(home, "remove", name)
    assert result.returncode == 2
    assert f"no registered server named {name!r}" in one_line(result)
    assert home_is_empty(home)
    assert [p.name for p in tmp_path.rglob("*.lock")] == []


@pytest.mark.parametrize("args", [("remove", "x"), ("token", "list"), ("convert", "pypi:six")])
def test_a_home_that_cannot_be_made_exits_2_before_anything_runs(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A home under /proc cannot be made: each command that writes to it says so at start
    (``remove`` was an internal error, ``convert`` said "only 0 MB free")."""
    home = Path("/proc/1/metaserver-home")
    result = run(home, *args)
    assert result.returncode == 2
    line = one_line(result)
    assert line == f"metaserver: invalid settings: METASERVER_HOME: cannot make {home}: " + (
        "No such file or directory"
    ), line
