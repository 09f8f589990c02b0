"""How a generated server is started: one command, used by validation, the CLI and the
meta-server alike, so that what was validated is exactly what is served."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metaserver.contracts import PTH_NAME
from metaserver.sandbox import Command, Policy, Sandbox

if TYPE_CHECKING:
    from fastmcp.client.transports import StdioTransport

SERVER_ALIAS = Path("/server")
VENV_ALIAS = Path("/venv")
# Names a live server's processes on the host (whose command line shows only the neutral
# /server/server.py under bwrap) without telling the child any path of the home.
SERVER_ID_VARIABLE = "SANDBOX_SERVER_ID"
# What a server directory holds for the operator, with host paths (the unconfined command,
# the home a client names): the server never reads them, and no tool may (issue 28).
OPERATOR_FILES = ("README.md", "mcp.json")


def server_id(server_dir: Path) -> str:
    """A digest of ``server_dir``'s absolute path: the same for every start of one server."""
    return hashlib.sha256(str(server_dir.absolute()).encode()).hexdigest()[:24]


def server_command(sandbox: Sandbox, python: Path, server_dir: Path, timeout: float) -> Command:
    """The sandboxed command that serves ``server_dir/server.py`` over stdio.

    Args:
        sandbox: the backend that confines the child.
        python: the environment's interpreter (the server needs nothing of metaserver).
        server_dir: the generated server's directory; its ``work/`` is the only writable place.
        timeout: wall-clock budget; long-lived children are bounded by the caller instead.
    """
    workdir = server_dir / "work"
    venv = python.parent.parent
    policy = Policy(
        workdir=workdir,
        timeout=timeout,
        network=False,
        readable=(server_dir, venv, *workspace_paths(venv)),
        writable=(workdir,),
        kind="serve",
        tenant=server_dir.name,  # a uid of this server's own (sandbox.identity.for_tenant)
        # Seen inside as /server (its work/ writable there too, where server.py finds it) and
        # /venv, so that no path of the home reaches the server or its results (issue 28).
        aliases=(
            (server_dir, SERVER_ALIAS),
            (workdir, SERVER_ALIAS / "work"),
            (venv, VENV_ALIAS),
        ),
        hidden=tuple(server_dir / name for name in OPERATOR_FILES),
        env={
            SERVER_ID_VARIABLE: server_id(server_dir),
            "PYTHONUNBUFFERED": "1",
            "FASTMCP_SHOW_SERVER_BANNER": "false",
            "FASTMCP_LOG_LEVEL": "WARNING",
        },
    )
    return sandbox.wrap([str(python), "-I", str(server_dir / "server.py")], policy)


def workspace_paths(venv: Path) -> list[Path]:
    """The trees a ``requirements+path`` environment made before issue 28 imports from (the
    absolute lines of its ``.pth`` file), which the server must be able to read, read-only.

    A newer one holds a copy of its tree and names it relative to site-packages
    (``agents/environment/host_paths.py``): no line here, no host path on ``sys.path``.
    """
    found: list[Path] = []
    for pth in venv.glob(f"lib/python*/site-packages/{PTH_NAME}"):
        for line in pth.read_text(errors="replace").splitlines():
            path = Path(line.strip())
            if line.strip() and path.is_absolute() and path.is_dir() and path not in found:
                found.append(path)
    return found


def stdio_transport(command: Command, keep_alive: bool = True) -> StdioTransport:
    """A FastMCP stdio transport for ``command`` (the child starts on first use)."""
    # FastMCP's client is imported on first use: a meta-server reaches its stdio children
    # through its own pipe (children/pipe.py), and the client's import (with its key-value
    # stores) was a quarter of a start (docs/ARCHITECTURE.md, decision 33).
    from fastmcp.client.transports import StdioTransport

    command.cwd.mkdir(parents=True, exist_ok=True)
    return StdioTransport(
        command=command.argv[0],
        args=command.argv[1:],
        env=command.env,
        cwd=str(command.cwd),
        keep_alive=keep_alive,
        # The child's stderr is its log; keep it beside its work files, not on our stderr.
        log_file=command.cwd / "server.log",
    )


def result_value(raw: Any) -> Any:
    """The value a generated tool returned: its wrapped ``result``, else its text as JSON."""
    structured = raw.structured_content
    if structured is not None and "result" in structured:
        return structured["result"]
    text = "".join(getattr(block, "text", "") for block in raw.content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def error_text(raw: Any) -> str:
    """The message of an error result."""
    return " ".join(getattr(block, "text", "") for block in raw.content)
