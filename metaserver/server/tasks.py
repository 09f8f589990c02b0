"""MCP tasks (SEP-2663, ``io.modelcontextprotocol/tasks``) for the meta-server's long tools.

A conversion takes from seconds to many minutes. A 2026-07-28 client that supports the tasks
extension gets a task for ``convert_repo`` at once: it polls ``tasks/get`` (each progress
message becomes the task's ``statusMessage``), may do other work meanwhile, and can stop the
conversion with ``tasks/cancel``, which kills its sandboxed processes and registers nothing.
Every other client (legacy era, or no extension) runs the tool inline, with progress
notifications, as before.

The engine is the separate package ``fastmcp-tasks`` (docs/ARCHITECTURE.md,
"FastMCP facts"). Its newest release pins an older ``fastmcp-slim``
than ours; ``pyproject.toml`` overrides that pin. Should the import ever fail, the server is
served without tasks rather than not at all: a task-enabled tool without the extension makes
every connection fail.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from fastmcp import FastMCP
from fastmcp.utilities.tasks import TaskConfig

logger = logging.getLogger(__name__)

# Clients poll tasks/get this often; the default (5 s) would add seconds to every conversion
# that a client awaits transparently.
POLL_INTERVAL = timedelta(seconds=1)

# Tasks live in this process: a restarted meta-server forgets them, and the staging area
# already guarantees that an interrupted conversion leaves nothing half-registered.
_BACKEND = "memory://"

# How long the worker's read for new tasks blocks. Its default (50 ms) made an idle
# meta-server use about 2 % of a core, 1 s about 1 % (docket's scheduler loop is the rest).
_CHECK_INTERVAL = timedelta(seconds=1)

# Tasks the worker holds at once. A task waiting for a conversion slot is only a coroutine
# (the slots are the meta-server's own limit), so this bounds memory, not work.
_WORKER_CONCURRENCY = 32


def enable_tasks(mcp: FastMCP[Any]) -> TaskConfig | None:
    """Serve the tasks extension on ``mcp``; return the config for task-capable tools.

    Args:
        mcp: the server.

    Returns:
        ``TaskConfig(mode="optional")`` to declare on a tool, or ``None`` when the extension is
        unavailable (then no tool may be declared task-capable).
    """
    try:
        from fastmcp_tasks import TasksExtension
    except ImportError as exc:
        logger.warning(
            "MCP tasks are not served (%s); convert_repo runs as a job that clients join or "
            "poll (conversion_status) and cancel (cancel_conversion)",
            exc,
        )
        return None
    # The backend is named here, not left to FASTMCP_DOCKET_* settings, which fastmcp-tasks
    # also reads from a .env file in the working directory.
    mcp.add_extension(
        TasksExtension(
            url=_BACKEND,
            name="metaserver",
            concurrency=_WORKER_CONCURRENCY,
            minimum_check_interval=_CHECK_INTERVAL,
        )
    )
    return TaskConfig(mode="optional", poll_interval=POLL_INTERVAL)
