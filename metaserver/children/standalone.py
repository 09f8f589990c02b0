"""One registered server served over this process's stdio, confined (``metaserver run``).

This is what a generated server's ``mcp.json`` starts: the same sandboxed command that
validation and the meta-server use (:func:`metaserver.children.launch.server_command`), with
the client's stdin and stdout handed straight to it. The server's own log goes to
``work/server.log``, never to stdout, which belongs to the MCP stream.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from types import FrameType

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
            command.argv, env=command.env, cwd=command.cwd, stderr=log, start_new_session=True
        )

        def stop(signum: int, _frame: FrameType | None) -> None:
            # The child runs in its own session: take its whole tree with it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, stop)
        return process.wait()
