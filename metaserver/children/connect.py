"""How any registered server is reached: one client transport per kind of server.

A converted server is the sandboxed command of :func:`metaserver.children.launch.server_command`.
An added server (``metaserver add``, :class:`~metaserver.registry.records.Endpoint`) is either
its own command, run in the sandbox like a generated server (:func:`added_command`), or a
streamable HTTP endpoint called with its headers. The pool, ``metaserver call`` and the add
itself (which lists the tools through exactly this transport) all start servers here.

What an added stdio server may read (docs/ARCHITECTURE.md, "Existing MCP servers"): the
command is run as given (no shell, its executable stored as an absolute path); every absolute
path on its command line that exists is bound read-only at its own path (a Python interpreter
with its installation, a script, a data directory); an executable inside a virtual
environment's ``bin/`` brings that environment, and a script's ``#!`` interpreter is bound
too. Its only writable directory, and its ``HOME``, is ``work/`` of its version directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from metaserver.children.launch import server_command, stdio_transport
from metaserver.exceptions import SandboxError
from metaserver.registry.records import Endpoint, ServerRecord
from metaserver.sandbox import Command, Policy, Sandbox

if TYPE_CHECKING:
    from fastmcp.client.transports import ClientTransport

__all__ = ["added_command", "command_files", "command_for", "transport_for"]


def command_for(record: ServerRecord, sandbox: Sandbox | None, timeout: float) -> Command | None:
    """The sandboxed command that serves ``record`` over stdio; None for an HTTP endpoint.

    Raises:
        SandboxError: a command is needed and there is no sandbox.
    """
    endpoint = record.endpoint
    if endpoint is not None and endpoint.transport == "http":
        return None
    if sandbox is None:
        raise SandboxError(f"server {record.ref!r} runs a command, which needs a sandbox")
    if endpoint is None:
        return server_command(sandbox, record.python_path, record.output_dir, timeout)
    return added_command(sandbox, endpoint, record.output_dir, timeout)


def transport_for(
    record: ServerRecord, sandbox: Sandbox | None, timeout: float, keep_alive: bool = True
) -> ClientTransport:
    """The client transport that reaches ``record``'s server (a child starts on first use).

    Args:
        record: the registered version.
        sandbox: the backend that confines stdio children (None will do for an HTTP one).
        timeout: the sandbox's wall-clock budget for a stdio child.
        keep_alive: whether a stdio child outlives one client session.
    """
    command = command_for(record, sandbox, timeout)
    if command is not None:
        return stdio_transport(command, keep_alive=keep_alive)
    from fastmcp.client.transports import StreamableHttpTransport  # on first use (launch.py)

    endpoint = record.endpoint
    assert endpoint is not None and endpoint.url is not None
    headers = {key: value.get_secret_value() for key, value in endpoint.headers.items()}
    return StreamableHttpTransport(endpoint.url, headers=headers)


def added_command(sandbox: Sandbox, endpoint: Endpoint, home: Path, timeout: float) -> Command:
    """The sandboxed command of an added stdio server whose version directory is ``home``.

    The child acts for a tenant of its own (``home``'s name, as a generated server does), has
    no network unless the operator allowed it, and writes only ``home/work``.
    """
    workdir = home / "work"
    policy = Policy(
        workdir=workdir,
        timeout=timeout,
        internet=endpoint.allow_network,
        readable=tuple(command_files(endpoint.command)),
        writable=(workdir,),
        kind="serve",
        tenant=home.name,
        env={"PYTHONUNBUFFERED": "1"},
    )
    return sandbox.wrap(endpoint.command, policy)


def command_files(command: list[str]) -> list[Path]:
    """What the command needs to read besides the paths its command line names (which every
    backend binds): the virtual environment its executable lives in, and the interpreter of
    its ``#!`` line."""
    if not command:
        return []
    executable = Path(command[0])
    found: list[Path] = []
    venv = executable.parent.parent
    if executable.parent.name == "bin" and (venv / "pyvenv.cfg").is_file():
        found.append(venv)
    interpreter = shebang_interpreter(executable)
    if interpreter is not None:
        found.append(interpreter)
        if (
            interpreter.parent.name == "bin"
            and (interpreter.parent.parent / "pyvenv.cfg").is_file()
        ):
            found.append(interpreter.parent.parent)
    return found


def shebang_interpreter(executable: Path) -> Path | None:
    """The absolute interpreter a script's ``#!`` line names (``/usr/bin/env`` is itself)."""
    try:
        with executable.open("rb") as file:
            head = file.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words or not words[0].startswith("/"):
        return None
    path = Path(words[0])
    return path if path.exists() else None
