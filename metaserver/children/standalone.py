"""One registered server served over this process's stdio, confined (``metaserver run``).

This is what a generated server's ``mcp.json`` starts: the same sandboxed command that
validation and the meta-server use (:func:`metaserver.children.launch.server_command`). The
client's lines are relayed to it one by one, so that a line that is no JSON-RPC message is
answered here (-32700 or -32600 with a null id, :mod:`metaserver.children.bad_lines`) as
``metaserver serve`` answers it, instead of being dropped by the server's SDK; its lines
come back whole, so an answer of ours never lands inside one of its messages. The server's
own log goes to ``work/server.log``, never to stdout, which belongs to the MCP stream.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import IO

from metaserver.children.bad_lines import BoundedLines, encoded, judge
from metaserver.children.connect import added_command
from metaserver.children.launch import server_command
from metaserver.exceptions import UserError
from metaserver.registry import Registry
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings


def serve_stdio(settings: Settings, ref: str) -> int:
    """Serve ``ref`` (``name`` or ``name@version``) until the client closes; its exit code.

    Raises:
        NotFoundError: no such server or version.
        UserError: an added HTTP server (a client reaches it at its own URL).
    """
    record = Registry(settings.registry_path).resolve(ref)
    sandbox, budget = get_sandbox(settings.sandbox), settings.timeouts.server_start
    endpoint = record.endpoint
    if endpoint is None:
        command = server_command(sandbox, record.python_path, record.output_dir, budget)
    elif endpoint.transport == "stdio":
        command = added_command(sandbox, endpoint, record.output_dir, budget)
    else:
        raise UserError(f"server {ref!r} is an HTTP server: a client reaches it at its own URL")
    command.cwd.mkdir(parents=True, exist_ok=True)
    with (command.cwd / "server.log").open("ab") as log:
        process = subprocess.Popen(
            command.argv,
            env=command.env,
            cwd=command.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )

        def stop(signum: int, _frame: object) -> None:
            # The child runs in its own session: take its whole tree with it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, stop)
        return relay(process, sys.stdin.buffer, sys.stdout.buffer)


def relay(process: subprocess.Popen[bytes], source: IO[bytes], sink: IO[bytes]) -> int:
    """Pass ``source``'s lines to ``process`` and its lines to ``sink`` until it exits;
    answer lines that are no JSON-RPC message on ``sink`` itself. Returns its exit code."""
    assert process.stdin is not None and process.stdout is not None
    lock = threading.Lock()  # one writer of sink at a time: whole lines only

    def write(line: bytes) -> None:
        with lock:
            sink.write(line)
            sink.flush()

    def client_to_server(child_in: IO[bytes]) -> None:
        try:
            for line in BoundedLines(source):
                answer = judge(line)
                if answer is not None:
                    write(encoded(answer))
                elif line.strip():
                    child_in.write(line if line.endswith(b"\n") else line + b"\n")
                    child_in.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the server is gone; the other direction ends the relay
        finally:
            with contextlib.suppress(OSError):
                child_in.close()  # end of the client's input is the server's too

    # A daemon: a client that keeps its end open must not keep us alive after the server ends.
    threading.Thread(target=client_to_server, args=(process.stdin,), daemon=True).start()
    with contextlib.suppress(BrokenPipeError, OSError):
        for line in process.stdout:
            write(line)
    return process.wait()
