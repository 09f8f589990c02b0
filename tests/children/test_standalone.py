"""``metaserver run``'s relay: lines that are no JSON-RPC message are answered as
``metaserver serve`` answers them, messages reach the server, its answers come back whole."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from metaserver.children.standalone import relay

pytestmark = pytest.mark.integration

# A stand-in server: answers every request with the method it saw, and says which lines it
# got at the end (stderr), so the test can tell that no bad line reached it.
ECHO = textwrap.dedent(
    """
    import json, sys
    seen = []
    for line in sys.stdin:
        seen.append(line)
        message = json.loads(line)
        if "id" in message:
            result = {"method": message["method"]}
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            sys.stdout.write(json.dumps(answer) + "\\n")
            sys.stdout.flush()
    sys.stderr.write(json.dumps(seen))
    """
)


def test_bad_lines_are_answered_and_messages_relayed(tmp_path: Path) -> None:
    script = tmp_path / "echo.py"
    script.write_text(ECHO)
    lines = [
        b'{"jsonrpc": "2.0", "id": 1, "method": "initial',  # truncated
        b"[" * 10_000 + b"]" * 10_000,  # nested beyond the parser's limit
        b'{"hello": "world"}',  # JSON, no JSON-RPC message
        b"",  # a stray newline: no answer
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}',
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        b'{"jsonrpc": "2.0", "id": 8, "method": "ping"}',
    ]
    source = io.BytesIO(b"\n".join(lines) + b"\n")
    sink = io.BytesIO()
    process = subprocess.Popen(
        [sys.executable, "-I", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert relay(process, source, sink) == 0
    assert process.stderr is not None
    seen = json.loads(process.stderr.read())
    process.stderr.close()

    answers: list[dict[str, Any]] = [json.loads(line) for line in sink.getvalue().splitlines()]
    errors = [a for a in answers if a.get("id") is None]
    assert [e["error"]["code"] for e in errors] == [-32700, -32700, -32600]
    assert all(e["jsonrpc"] == "2.0" and "id" in e for e in errors)
    assert "nested too deeply" in errors[1]["error"]["message"]
    results = {a["id"]: a["result"]["method"] for a in answers if a.get("id") is not None}
    assert results == {7: "tools/list", 8: "ping"}
    # Only the three messages reached the server, unchanged.
    assert [line.rstrip("\n").encode() for line in seen] == lines[4:]
