"""A tiny FastMCP 4.1.6 server that stands in for a generated one, and its registry record.

It runs with the project's own interpreter (which has fastmcp) through the real sandbox
command of ``metaserver.children.launch``, exactly as a generated server would.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from metaserver.children.launch import SERVER_ALIAS, SERVER_ID_VARIABLE, server_id
from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry
from metaserver.settings import Settings

SERVER_SCRIPT = '''\
import asyncio
import os
import sys
import uuid

from fastmcp import FastMCP

mcp = FastMCP("fake")
INSTANCE = uuid.uuid4().hex


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers and return their sum."""
    return a + b


@mcp.tool
def split_words(text: str) -> list[str]:
    """Split a sentence of text into its words."""
    return text.split()


@mcp.tool
async def nap(seconds: float) -> float:
    """Sleep for a number of seconds, then return how long it slept."""
    await asyncio.sleep(seconds)
    return seconds


@mcp.tool
def explode(message: str) -> str:
    """Always fail with an internal error."""
    # Names this file, the interpreter and sys.path: what a real error may carry.
    raise ValueError(f"boom: {message} at {__file__} by {sys.executable} on {sys.path}")


@mcp.tool
def pid() -> int:
    """The process id of this server."""
    return os.getpid()


@mcp.tool
def instance() -> str:
    """A random id of this server process (pids repeat across pid namespaces)."""
    return INSTANCE


if __name__ == "__main__":
    mcp.run(show_banner=False)
'''

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "add": (
        "Add two integers and return their sum.",
        {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "first addend"},
                "b": {"type": "integer", "description": "second addend"},
            },
            "required": ["a", "b"],
        },
    ),
    "split_words": (
        "Split a sentence of text into its words.",
        {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "the sentence"}},
            "required": ["text"],
        },
    ),
    "nap": (
        "Sleep for a number of seconds, then return how long it slept.",
        {
            "type": "object",
            "properties": {"seconds": {"type": "number", "description": "how long"}},
            "required": ["seconds"],
        },
    ),
    "explode": (
        "Always fail with an internal error.",
        {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    ),
    "pid": ("The process id of this server.", {"type": "object", "properties": {}}),
    "instance": (
        "A random id of this server process (pids repeat across pid namespaces).",
        {"type": "object", "properties": {}},
    ),
}


def fake_record(
    settings: Settings, name: str, version: str = "", commit: str = "0" * 40
) -> ServerRecord:
    """Write the fake server and describe it.

    Without ``version`` it lives in ``settings.servers_dir/name``; with one, in
    ``servers_dir/<name>-<version>`` (as a conversion lays it out) and the record is that
    version, of ``commit``.
    """
    output_dir = settings.servers_dir / (f"{name}-{version}" if version else name)
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "server.py").write_text(SERVER_SCRIPT)
    return ServerRecord(
        name=name,
        version_id=version,
        source=f"test:{name}",
        commit=commit,
        output_dir=output_dir,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
        tools=[
            ToolRecord(
                name=tool,
                description=description,
                target=f"fake:{tool}",
                input_schema=schema,
                definition_hash=tool,
            )
            for tool, (description, schema) in TOOLS.items()
        ],
    )


def register_fake(
    settings: Settings, name: str, version: str = "", commit: str = "0" * 40
) -> ServerRecord:
    """Write, register and return a fake server called ``name`` (see :func:`fake_record`)."""
    record = fake_record(settings, name, version, commit)
    return Registry(settings.registry_path).register(record).record


def fast_settings(home: Path, **overrides: Any) -> Settings:
    """Settings with short timeouts, for tests."""
    values: dict[str, Any] = {
        "home": home,
        "timeouts": {"server_start": 30, "tool_call": 10},
    }
    values.update(overrides)
    return Settings(**values)


def server_pids(output_dir: Path) -> list[int]:
    """Host pids of live processes running ``output_dir/server.py`` (read from /proc).

    The sandbox's own wrapper processes (bwrap, whose argv names the script too) are left
    out, so each live child counts once whatever the backend.
    """
    # Under bwrap the server's command line names the neutral /server/server.py, so its
    # environment's server id (a digest of the directory) tells whose it is.
    script = str(output_dir / "server.py").encode()
    neutral = str(SERVER_ALIAS / "server.py").encode()
    marker = f"{SERVER_ID_VARIABLE}={server_id(output_dir)}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            ours = script in argv or (
                neutral in argv and marker in (entry / "environ").read_bytes().split(b"\0")
            )
        except OSError:
            continue
        if ours and state != "Z" and not argv[0].endswith(b"bwrap"):
            pids.append(int(entry.name))
    return pids


def kill_and_wait(pid: int, timeout: float = 10) -> None:
    """SIGKILL ``pid`` and wait until it is gone (or a zombie)."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        if state == "Z":
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not die")
