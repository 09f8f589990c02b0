"""MCP tasks (SEP-2663, ``io.modelcontextprotocol/tasks``) for the meta-server's long tools.

A conversion takes from seconds to many minutes. A 2026-07-28 client that supports the tasks
extension gets a task for ``convert_repo`` at once: it polls ``tasks/get`` (each progress
message becomes the task's ``statusMessage``), may do other work meanwhile, and can stop the
conversion with ``tasks/cancel``, which kills its sandboxed processes and registers nothing.
Every other client (legacy era, or no extension) runs the tool inline, with progress
notifications, as before.

The engine is the separate package ``fastmcp-tasks`` (docs/ARCHITECTURE.md,
"FastMCP facts"). Its newest release pins an older ``fastmcp-slim``
than ours; ``pyproject.toml`` overrides that pin. Should the package be missing, the server
is served without tasks rather than not at all: a task-enabled tool without the extension
makes every connection fail.

The engine is imported when a client first asks for a task, not at start (issue 31): with
its queue (docket, redis, key-value stores) it was a quarter of the time to a meta-server's
first answer, and most sessions never convert. :class:`DeferredTasks` is registered in its
place: it declares the same capability and methods, and hands each task request to the
engine, started on first need.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from fastmcp import FastMCP
from fastmcp.server.extensions import MethodBinding, ServerExtension
from fastmcp.utilities.tasks import TASKS_EXTENSION_ID, TaskConfig
from mcp.server.context import ServerRequestContext
from mcp_types import RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import mcp_types
    from fastmcp.server.context import Context
    from fastmcp.server.extensions import ToolCallContinuation, ToolCallOutcome

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
        found = importlib.util.find_spec("fastmcp_tasks") is not None
    except (ImportError, ValueError) as exc:
        found, missing = False, str(exc)
    else:
        missing = "fastmcp-tasks is not installed"
    if not found:
        logger.warning(
            "MCP tasks are not served (%s); convert_repo runs as a job that clients join or "
            "poll (conversion_status) and cancel (cancel_conversion)",
            missing,
        )
        return None
    mcp.add_extension(DeferredTasks(_engine))
    return TaskConfig(mode="optional", poll_interval=POLL_INTERVAL)


def _engine() -> ServerExtension:
    """The tasks engine, imported now (on a worker thread: the server keeps answering)."""
    from fastmcp_tasks import TasksExtension

    # The backend is named here, not left to FASTMCP_DOCKET_* settings, which fastmcp-tasks
    # also reads from a .env file in the working directory.
    return TasksExtension(
        url=_BACKEND,
        name="metaserver",
        concurrency=_WORKER_CONCURRENCY,
        minimum_check_interval=_CHECK_INTERVAL,
    )


class _TaskParams(RequestParams):
    """``tasks/get`` and ``tasks/cancel``: the fields fastmcp-tasks' own params declare, so
    a malformed request is refused before the engine is started, as the engine refuses it."""

    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(alias="taskId")


class _UpdateParams(_TaskParams):
    """``tasks/update``: the task and the caller's input responses."""

    input_responses: dict[str, Any] = Field(alias="inputResponses")


_METHODS: dict[str, type[BaseModel]] = {
    "tasks/get": _TaskParams,
    "tasks/update": _UpdateParams,
    "tasks/cancel": _TaskParams,
}


class DeferredTasks(ServerExtension):
    """The tasks extension's place in the server until a client asks for a task.

    It advertises the extension (its identifier, so ``initialize`` is what the engine's would
    be) and serves its three methods; a task method, or a ``tools/call`` of a task-capable
    tool, starts the engine (imported on a worker thread, its lifespan entered once, in a
    task of this lifespan, and left there at shutdown) and hands the request to it. Every
    other call passes through untouched: the engine is never imported for them.
    """

    identifier = TASKS_EXTENSION_ID

    def __init__(self, engine: Callable[[], ServerExtension]) -> None:
        self._make_engine = engine
        self._task_tools: frozenset[str] = frozenset()
        self._wanted: asyncio.Event | None = None
        self._engine: asyncio.Future[ServerExtension] | None = None

    def methods(self) -> Sequence[MethodBinding]:
        return [
            MethodBinding(
                method=method,
                params_type=params,
                handler=self._handler(method),
                protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS),
            )
            for method, params in _METHODS.items()
        ]

    def _handler(self, method: str) -> Callable[[ServerRequestContext[Any, Any], Any], Any]:
        async def handle(ctx: ServerRequestContext[Any, Any], params: BaseModel) -> Any:
            engine = await self._started()
            binding = next(b for b in engine.methods() if b.method == method)
            given = binding.params_type.model_validate(params.model_dump(by_alias=True))
            return await binding.handler(ctx, given)

        return handle

    async def intercept_tool_call(
        self,
        params: mcp_types.CallToolRequestParams,
        context: Context,
        call_next: ToolCallContinuation,
    ) -> ToolCallOutcome:
        if params.name not in self._task_tools:
            return await call_next()
        try:
            engine = await self._started()
        except Exception:  # it could not start (logged once, by _hold): the tool runs inline
            return await call_next()
        return await engine.intercept_tool_call(params, context, call_next)

    async def _started(self) -> ServerExtension:
        """The engine, started by the first caller that needs it."""
        if self._wanted is None or self._engine is None:
            raise RuntimeError("the tasks extension is used outside the server's lifespan")
        self._wanted.set()
        return await asyncio.shield(self._engine)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        # Only the server's own tools can be tasks (the children's answer get_tasks with
        # nothing), so the names are known now and a call is told apart by its name alone.
        self._task_tools = frozenset(
            tool.name for tool in await self.server.get_tasks() if tool.task_config.supports_tasks()
        )
        self._wanted = asyncio.Event()
        self._engine = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        holder = asyncio.create_task(self._hold(self._wanted, self._engine, stop))
        try:
            yield
        finally:
            stop.set()
            await holder
            self._wanted = self._engine = None

    async def _hold(
        self, wanted: asyncio.Event, engine: asyncio.Future[ServerExtension], stop: asyncio.Event
    ) -> None:
        """Start the engine when it is first wanted and keep it until ``stop``: its lifespan
        is entered and left in this one task, as its task groups require."""
        waits = [asyncio.create_task(wanted.wait()), asyncio.create_task(stop.wait())]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for waiting in waits:
            waiting.cancel()
        if stop.is_set():
            engine.cancel()
            return
        try:
            made = await asyncio.to_thread(self._make_engine)
            # Bound as add_extension binds: its handlers and lifespan reach the server.
            made._bind(self.server)
            async with made.lifespan():
                engine.set_result(made)
                await stop.wait()
        except Exception as exc:
            logger.exception("MCP tasks could not start")
            if not engine.done():
                engine.set_exception(exc)
