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

from metaserver.children.launch import server_command
from metaserver.registry import Registry
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings


def serve_stdio(settings: Settings, ref: str) -> int:
    """Serve ``ref`` (``name`` or ``name@version``) until the client closes; its exit code.

    Raises:
        NotFoundError: no such server or version.
    """
    record = Registry(settings.registry_path).resolve(ref)
    command = server_command(
        get_sandbox(settings.sandbox),
        record.python_path,
        record.output_dir,
        settings.timeouts.server_start,
    )
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
