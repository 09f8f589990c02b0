"""Live generated servers ("children"), started on demand and stopped when idle.

ARCHITECTURE.md decision 7: a registered server starts on its first call, at most
``settings.max_live_children`` run at once (the least recently used idle one is stopped to make
room), and one idle for ``settings.child_idle_seconds`` is stopped by a background reaper.
A child with a call in flight is never stopped to make room: when every live child is busy, a
call to another server waits for one to go idle, within its own time limit, and is then
refused with a "too many servers busy" error result (:class:`PoolBusyError`). Waiting calls
take slots in the order they came, one start serving every waiting call of its server. The
registry, not this pool, says what exists, so the pool holds nothing that a restart loses.

A child holds a files lease on the version directories it runs from
(:func:`metaserver.registry.files.hold_files`) until it has exited, so that a removal in
another process leaves its files in place (issue 28: a lazily imported module was gone
mid-call). Such a child finishes the calls it has, takes no new ones ("server ... was
removed"), and is stopped by the reaper, which then deletes the files it held.

Children are keyed by version (``name@version``, :attr:`ServerRecord.ref`): an old version and
the newest one of a server can run side by side, and a new version gets a child of its own.

Each child is the sandboxed command of :func:`metaserver.children.launch.server_command`, the
same one validation used, driven by one standing session in the legacy (``initialize``) era
that concurrent calls share: a :class:`~metaserver.children.pipe.PipeSession` of raw JSON-RPC
lines (issue 31: the hop costs about what the pipe does). An added server (``metaserver
add``) is reached the same way through its own sandboxed command, or through a FastMCP
``Client`` on its HTTP endpoint (:func:`metaserver.children.connect.transport_for`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types
from mcp import MCPError

from metaserver.children.connect import command_for, transport_for
from metaserver.children.pipe import OversizedAnswer, PipeSession
from metaserver.children.tool_timeouts import tool_timeout
from metaserver.registry.files import ServerRemovedError, discard_removed, hold_files, owned_paths
from metaserver.registry.locks import FilesLease
from metaserver.registry.records import ServerRecord, split_ref
from metaserver.registry.store import Registry
from metaserver.sandbox import Sandbox, get_sandbox
from metaserver.settings import Settings

if TYPE_CHECKING:
    # FastMCP's client reaches only added HTTP servers (stdio children have their pipe): it
    # is imported when one is started, not with the meta-server (children/launch.py).
    from fastmcp import Client

logger = logging.getLogger(__name__)
_Result = TypeVar("_Result", mcp_types.ReadResourceResult, mcp_types.GetPromptResult)


class ChildRequestError(RuntimeError):
    """A resource read or prompt request the child could not answer (or was not started for)."""


class PoolBusyError(RuntimeError):
    """Every live child has calls in flight and none went idle within the call's time limit."""


# How often the reaper looks in the registry for live children's versions that another
# process removed (one light query).
_REMOVED_CHECK_SECONDS = 2.0
_RETIRED_KEPT = 256

# Slack over the per-call timeout for our own guard, in case the client's timeout never fires
# (a child that stops reading its stdin can block the request write itself).
_GUARD_SLACK = 5.0


def error_result(message: str) -> mcp_types.CallToolResult:
    """A tool result that reports ``message`` as an error (``isError: true``)."""
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=message)], is_error=True
    )


@dataclass(eq=False)
class _Child:
    record: ServerRecord
    # A stdio child's session (pipe), or an HTTP server's client.
    pipe: PipeSession | None = None
    client: Client[Any] | None = None
    last_used: float = field(default_factory=time.monotonic)
    in_flight: int = 0
    # Chosen to go next for a start that waits: takes no new calls, stops once idle.
    draining: bool = False
    # The lease on the version directories the child runs from (a stdio child's).
    lease: FilesLease | None = None
    # Unregistered (by another process): takes no new calls, stops once idle.
    removed: bool = False

    def same_server(self, record: ServerRecord) -> bool:
        """Whether this child serves ``record`` as registered now (a re-conversion differs)."""
        mine = self.record
        return (mine.output_dir, mine.python_path, mine.created_at) == (
            record.output_dir,
            record.python_path,
            record.created_at,
        )

    def is_dead(self) -> bool:
        """Whether the child process is known to have gone (crash, kill, closed pipes).

        Reads the pinned FastMCP 4.1.6 transport's private state, guarded: if those names
        change, a dead child is still found by the failed call, one call later.
        """
        if self.pipe is not None:
            return self.pipe.is_dead()
        assert self.client is not None
        from fastmcp.client.transports import StdioTransport

        transport = self.client.transport
        if not isinstance(transport, StdioTransport):
            # An added HTTP server: no process of ours; the session is what can be lost.
            return not self.client.is_connected()
        task = getattr(transport, "_connect_task", None)
        if task is None or task.done() or not self.client.is_connected():
            return True
        session_dead = getattr(transport, "_is_session_dead", None)
        return bool(callable(session_dead) and session_dead())


@dataclass(eq=False)
class _Place:
    """A call's place in the line for a slot."""

    ref: str


class ChildPool:
    """The live children of registered servers, bounded in number and idle time."""

    def __init__(
        self,
        settings: Settings,
        sandbox: Sandbox | None = None,
        registry: Registry | None = None,
    ) -> None:
        """Create an empty pool; nothing starts until the first :meth:`call`.

        Args:
            settings: limits (``max_live_children``, ``child_idle_seconds``, ``timeouts``).
            sandbox: the backend that confines children; the configured one by default.
            registry: where a child's version is checked to be registered before it starts
                and while it runs (a removal by another process); unchecked without one.
        """
        self._settings = settings
        self._sandbox = sandbox
        self._registry = registry
        self._checked = 0.0  # when the registry was last read for removed versions
        # Servers whose children were stopped because another process removed them, for a
        # clear message to the calls that still name them (bounded: the newest only).
        self._retired: OrderedDict[str, None] = OrderedDict()
        self._children: OrderedDict[str, _Child] = OrderedDict()  # least recently used first
        self._starting: dict[str, asyncio.Task[_Child]] = {}
        self._reaper: asyncio.Task[None] | None = None
        # Slots taken by starts in progress (each becomes a child or is given back).
        self._reserved = 0
        # Set and replaced whenever a slot may have come free (a call ended, a child stopped)
        # or the line moved.
        self._changed = asyncio.Event()
        # Calls waiting for a slot, in the order they came.
        self._queue: list[_Place] = []
        # Calls waiting for a start of their server to end, by ref.
        self._joining: dict[str, int] = {}

    def live(self) -> list[str]:
        """Refs (``name@version``) of the running children, least recently used first."""
        return list(self._children)

    def served(self, name: str) -> bool:
        """Whether this pool runs a child of server ``name``, or stopped one because the
        server was removed: a call naming it now was meant for a server that was removed."""
        return name in self._retired or any(
            child.record.name == name for child in self._children.values()
        )

    def is_alive(self, ref: str) -> bool:
        """Whether the child of ``ref`` (``name@version``) runs and its connection is open."""
        child = self._children.get(ref)
        return child is not None and not child.is_dead()

    async def call(
        self, record: ServerRecord, tool: str, arguments: dict[str, Any]
    ) -> mcp_types.CallToolResult:
        """Call ``tool`` of ``record``'s server, starting or restarting its child if needed.

        Never raises for a failure of the child: a failed start, a crash, a timeout or an
        oversized result comes back as an error result, as a tool error does.

        Args:
            record: the registered server (how to start it).
            tool: the tool's name inside that server.
            arguments: the tool's arguments.

        Returns:
            The child's raw ``CallToolResult`` (``is_error``, ``structured_content``, ``content``).
        """
        # Idle children are stopped by the reaper task, never on this path: a call must not
        # wait for other servers to shut down.
        self._ensure_reaper()
        timeout = tool_timeout(record, tool, self._settings.timeouts.tool_call)
        try:
            child = await self._acquire(record, self._wait_budget(timeout))
        except (PoolBusyError, ServerRemovedError) as exc:
            return error_result(str(exc))
        except Exception as exc:
            logger.warning("server %s failed to start: %s", record.ref, exc)
            return error_result(f"server {record.ref!r} could not start: {_describe(exc)}")
        failure: BaseException | None = None
        try:
            # A scope, not ``wait_for`` (a task of its own a call on Python 3.11, issue 31).
            async with asyncio.timeout(timeout + _GUARD_SLACK):
                result, size = await _call_tool(child, tool, arguments, timeout)
        except Exception as exc:
            failure = exc
        finally:
            self._release(child)
        if failure is None:
            return self._capped(result, size, record.ref, tool)
        if isinstance(failure, OversizedAnswer):
            return self._over_cap(failure.size, record.ref, tool)
        if isinstance(failure, TimeoutError) or (
            isinstance(failure, MCPError) and failure.code == mcp_types.REQUEST_TIMEOUT
        ):
            # A timed-out tool may still be running (a busy loop cannot be cancelled), so
            # restart the child, unless other calls share it: they are not to be killed.
            if child.in_flight == 0:
                await self._stop_child(child)
            return error_result(
                f"tool {tool!r} of server {record.ref!r} timed out after {timeout:g}s"
            )
        return await self._failed(child, tool, failure)

    async def read_resource(self, record: ServerRecord, uri: str) -> mcp_types.ReadResourceResult:
        """Read ``uri`` from ``record``'s server (``resources/read``), starting it if needed.

        Raises:
            ChildRequestError: the child did not start, refused the read, or the result is
                over the result cap.
        """
        return await self._forward(
            record,
            f"resource {uri!r}",
            lambda child: _request(
                child,
                mcp_types.ReadResourceResult,
                "resources/read",
                {"uri": uri},
                lambda client: client.read_resource_mcp(uri),
                self._settings.timeouts.tool_call,
            ),
        )

    async def get_prompt(
        self, record: ServerRecord, name: str, arguments: dict[str, str] | None = None
    ) -> mcp_types.GetPromptResult:
        """Get prompt ``name`` of ``record``'s server (``prompts/get``), starting it if needed.

        Raises:
            ChildRequestError: as for :meth:`read_resource`.
        """
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self._forward(
            record,
            f"prompt {name!r}",
            lambda child: _request(
                child,
                mcp_types.GetPromptResult,
                "prompts/get",
                params,
                lambda client: client.get_prompt_mcp(name, arguments),
                self._settings.timeouts.tool_call,
            ),
        )

    async def _forward(
        self,
        record: ServerRecord,
        what: str,
        request: Callable[[_Child], Awaitable[_Result]],
    ) -> _Result:
        """One request to the child other than a tool call: same start, same bounds."""
        self._ensure_reaper()
        timeout = self._settings.timeouts.tool_call
        try:
            child = await self._acquire(record, self._wait_budget(timeout))
        except (PoolBusyError, ServerRemovedError) as exc:
            raise ChildRequestError(str(exc)) from None
        except Exception as exc:
            logger.warning("server %s failed to start: %s", record.ref, exc)
            raise ChildRequestError(
                f"server {record.ref!r} could not start: {_describe(exc)}"
            ) from None
        try:
            result = await asyncio.wait_for(request(child), timeout + _GUARD_SLACK)
        except OversizedAnswer as exc:
            raise ChildRequestError(
                f"{what} of server {record.ref!r} is {exc.size} bytes, over the "
                f"{self._settings.result_max_bytes}-byte cap"
            ) from None
        except MCPError as exc:  # the child's own answer (not found, refused)
            raise ChildRequestError(f"{what} of server {record.ref!r}: {exc}") from None
        except Exception as exc:
            if child.is_dead():
                await self._stop_child(child)
            raise ChildRequestError(
                f"{what} of server {record.ref!r} failed: {_describe(exc)}"
            ) from None
        finally:
            self._release(child)
        cap = self._settings.result_max_bytes
        size = len(json.dumps(result.model_dump(mode="json", exclude_none=True)))
        if size > cap:
            raise ChildRequestError(
                f"{what} of server {record.ref!r} is {size} bytes, over the {cap}-byte cap"
            )
        return result

    async def stop(self, ref: str) -> bool:
        """Stop the children of ``ref``: ``name@version``, or every version of ``name``.

        The next call starts a new one.

        Returns:
            Whether a child was running.
        """
        name, version = split_ref(ref)
        children = [
            child
            for child in list(self._children.values())
            if child.record.name == name and version in (None, child.record.version_id)
        ]
        for child in children:
            await self._stop_child(child)
        return bool(children)

    async def retain(self, name: str, versions: set[str]) -> list[str]:
        """Stop the children of ``name`` whose version is not in ``versions``, or whose files
        the registry no longer names.

        Used after a registration or removal: a replaced or removed version's files are
        about to go, so its child must not serve them. A version id alone does not say so: a
        re-conversion in another process keeps the id with new files (decision 28).

        Returns:
            The refs stopped.
        """
        registered = None
        if self._registry is not None:
            registered = {p.absolute() for p in await asyncio.to_thread(self._registry.paths)}
        stopped = []
        for child in list(self._children.values()):
            if child.record.name != name:
                continue
            if child.record.version_id not in versions or (
                registered is not None and self._files_gone(child, registered)
            ):
                stopped.append(child.record)
                await self._stop_child(child)
        if stopped and self._registry is not None:
            # The registration left the files these children leased: they may go now.
            await asyncio.to_thread(discard_removed, self._settings, stopped, self._registry)
        return [record.ref for record in stopped]

    async def reap_idle(self) -> list[str]:
        """Stop every child idle (no call in flight) for ``child_idle_seconds`` or longer.

        Returns:
            The names of the servers stopped.
        """
        stopped = []
        for child in list(self._children.values()):
            deadline = time.monotonic() - self._settings.child_idle_seconds
            # Checked right before each stop (earlier stops await): a call may have taken the
            # child meanwhile. _stop_child unlists it before its first await, so none can now.
            if self._children.get(child.record.ref) is not child:
                continue
            if child.in_flight == 0 and child.last_used <= deadline:
                logger.info("stopping idle server %s", child.record.ref)
                stopped.append(child.record.ref)
                await self._stop_child(child)
        return stopped

    async def retire_removed(self) -> list[str]:
        """Stop the children whose version is no longer registered (another process removed
        it) once their calls have ended, then delete the files they held.

        Returns:
            The refs stopped.
        """
        if self._registry is None or not self._children:
            return []
        registered = {p.absolute() for p in await asyncio.to_thread(self._registry.paths)}
        stopped = []
        for child in list(self._children.values()):
            if not self._files_gone(child, registered):
                continue
            child.removed = True
            if child.in_flight == 0 and self._children.get(child.record.ref) is child:
                logger.info("stopping server %s: it was removed", child.record.ref)
                await self._stop_child(child)
                stopped.append(child.record)
                self._retired[child.record.name] = None
                self._retired.move_to_end(child.record.name)
                while len(self._retired) > _RETIRED_KEPT:
                    self._retired.popitem(last=False)
        if stopped:
            await asyncio.to_thread(discard_removed, self._settings, stopped, self._registry)
        return [record.ref for record in stopped]

    def _files_gone(self, child: _Child, registered: set[Path]) -> bool:
        """Whether ``child`` runs from leased version files no registered version names."""
        mine = {p.absolute() for p in owned_paths(self._settings, child.record)}
        return child.lease is not None and bool(mine) and not mine & registered

    async def close(self) -> None:
        """Stop every child and the reaper. The pool stays usable: a later call restarts.

        The files of a child whose version another process removed are deleted here, as the
        reaper would have: a serve that ends between a removal and the reaper's next look
        left them to the next sweep, and a sweep that started meanwhile (another serve's
        start) found them still leased (the soak's last two orphans, issue 28).
        """
        reaper, self._reaper = self._reaper, None
        if reaper is not None:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper
        children = list(self._children.values())
        gone: list[ServerRecord] = []
        if self._registry is not None and children:
            with contextlib.suppress(Exception):  # a registry unreadable at exit: swept later
                registered = {p.absolute() for p in await asyncio.to_thread(self._registry.paths)}
                gone = [c.record for c in children if self._files_gone(c, registered)]
        await asyncio.gather(*(self._stop_child(c) for c in children), return_exceptions=True)
        if gone and self._registry is not None:
            await asyncio.to_thread(discard_removed, self._settings, gone, self._registry)

    async def _acquire(self, record: ServerRecord, wait: float) -> _Child:
        """The running child of ``record``, started if need be, with one call counted in
        flight (the caller hands it back with :meth:`_release`), so that no eviction can
        take it between here and the call.

        A call that needs a slot waits in line: slots go to waiting calls in the order they
        came (calls for one server share a place and a start), so a call waits for the
        servers ahead of it, never for every later one that happened to wake first.

        Raises:
            PoolBusyError: no slot came free within ``wait`` seconds.
        """
        deadline = time.monotonic() + wait
        name = record.ref
        place = _Place(name)
        try:
            while True:
                child = self._children.get(name)
                if child is not None and child.removed and child.same_server(record):
                    raise ServerRemovedError(record)  # (a re-converted one replaces it)
                usable = child is not None and child.same_server(record) and not child.is_dead()
                first = self._is_first(place)
                if child is not None and usable and (not child.draining or first):
                    # A draining child whose slot nobody ahead of this call waits for serves
                    # again (the call it drained for has gone, or is behind this one).
                    child.draining = False
                    self._children.move_to_end(name)
                    child.in_flight += 1
                    return child
                # Only starting is serialised, per server, by sharing one start task: calls to
                # running children, and starts of other servers, never wait for a slow start.
                task = self._starting.get(name)
                if task is None and not usable:
                    task = self._start_in_a_slot(record, child, first)
                if task is None:
                    # Draining (its calls finish, then it stops for a call ahead of this one),
                    # or every slot busy: wait in line.
                    self._enqueue(place)
                    self._drain_one()
                    await self._wait_for_change(record, deadline)
                    continue
                self._leave(place)  # the start is this call's turn, shared
                # Counted while it waits: the new child is no idle one to evict before the
                # calls that waited for it have had it (they resume after other waiters).
                self._joining[name] = self._joining.get(name, 0) + 1
                try:
                    # Shielded: a caller that gives up does not cancel a start others may be
                    # waiting for, and the task itself registers the child, so none is orphaned.
                    started = await asyncio.shield(task)
                    if self._children.get(name) is started and not started.is_dead():
                        self._children.move_to_end(name)
                        started.in_flight += 1
                        return started
                finally:
                    self._stop_joining(name)
                # Stopped between its start and this caller's turn (a removal, a crash): again.
                if time.monotonic() >= deadline:
                    raise PoolBusyError(f"server {name!r} stopped before the call could use it")
        finally:
            self._leave(place)

    def _start_in_a_slot(
        self, record: ServerRecord, stale: _Child | None, first: bool
    ) -> asyncio.Task[_Child] | None:
        """Start ``record``'s child in a slot taken now, or None when no slot can be had.

        A stale child (dead, or of a re-converted version) gives its slot to the new one;
        otherwise only a call first in line takes a free slot or an idle child's.
        """
        evicted = stale
        if stale is None:
            if not first:
                return None
            limit = max(self._settings.max_live_children, 1)
            if len(self._children) + self._reserved >= limit:
                evicted = next((c for c in self._children.values() if self._evictable(c)), None)
                if evicted is None:
                    return None
                logger.info(
                    "stopping idle server %s to stay within %d live children",
                    evicted.record.ref,
                    limit,
                )
        # Both in this step, with no await between: nobody else takes the slot or the
        # evicted child (a call to it would start it again in turn).
        self._reserved += 1
        if evicted is not None:
            self._unlist(evicted)
        name = record.ref
        # A fresh context, so that the child's long-lived session tasks do not inherit the
        # calling request's context (its MCP session, its auth).
        task = asyncio.create_task(self._replace(record, evicted), context=contextvars.Context())
        self._starting[name] = task
        task.add_done_callback(lambda done: self._forget_start(name, done))
        return task

    def _stop_joining(self, name: str) -> None:
        left = self._joining.pop(name) - 1
        if left:
            self._joining[name] = left
        else:
            self._notify()  # an unclaimed new child is idle now

    def _evictable(self, child: _Child) -> bool:
        return child.in_flight == 0 and not self._joining.get(child.record.ref)

    def _is_first(self, place: _Place) -> bool:
        """Whether no call ahead of ``place`` (all, when it is not in line) waits for a slot
        for another server."""
        for ahead in self._queue:
            if ahead is place:
                return True
            if ahead.ref != place.ref:
                return False
        return True

    def _enqueue(self, place: _Place) -> None:
        if place not in self._queue:
            self._queue.append(place)

    def _leave(self, place: _Place) -> None:
        if place in self._queue:
            self._queue.remove(place)
            self._notify()  # the next in line may now go

    def _drain_one(self) -> None:
        # Busy children that keep taking calls would never go idle: the least recently used
        # one takes no new calls from now on, so that it drains and gives its slot. (With
        # every slot taken by starts in progress, there is nothing to drain.)
        busy = list(self._children.values())
        if busy and not any(c.draining for c in busy):
            busy[0].draining = True

    def _wait_budget(self, timeout: float) -> float:
        # A call that needs a start may take the start's limit and then its own: waiting
        # for a slot is bounded by the same sum, so a wait never costs more than a start.
        return timeout + self._settings.timeouts.server_start

    def _release(self, child: _Child) -> None:
        child.in_flight -= 1
        child.last_used = time.monotonic()
        if child.in_flight == 0:
            self._notify()

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _wait_for_change(self, record: ServerRecord, deadline: float) -> None:
        """Wait until a slot may have come free.

        Raises:
            PoolBusyError: ``deadline`` passed first.
        """
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            limit = max(self._settings.max_live_children, 1)
            raise PoolBusyError(
                f"too many servers busy: all {limit} live children "
                "(METASERVER_MAX_LIVE_CHILDREN) have calls in flight, and none finished "
                f"in time to start server {record.ref!r}; try again"
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), remaining)

    def _give_back_slot(self) -> None:
        self._reserved -= 1
        self._notify()

    def _forget_start(self, name: str, task: asyncio.Task[_Child]) -> None:
        if self._starting.get(name) is task:
            del self._starting[name]
        if not task.cancelled():
            task.exception()  # retrieved here so an unawaited failure is not logged as lost

    async def _replace(self, record: ServerRecord, old: _Child | None) -> _Child:
        try:
            if old is not None:
                # An evicted idle child was logged when chosen; a stale one is restarted.
                if old.record.ref == record.ref:
                    logger.info("restarting server %s", record.ref)
                await self._close(old)
            child = await self._start(record)
            self._children[record.ref] = child
            return child
        finally:
            self._give_back_slot()

    async def _start(self, record: ServerRecord) -> _Child:
        settings = self._settings
        start = settings.timeouts.server_start
        endpoint = record.endpoint
        if endpoint is None or endpoint.transport != "http":
            sandbox = self._sandbox or get_sandbox(settings.sandbox)
            lease = await asyncio.to_thread(hold_files, settings, record, self._registry)
            try:
                # The sandbox's timeout is a start-up budget; this pool bounds the child's life.
                command = command_for(record, sandbox, start)
                assert command is not None
                pipe = await asyncio.wait_for(
                    PipeSession.start(
                        command, self._log_file(record.ref), settings.result_max_bytes, start
                    ),
                    start,
                )
            except BaseException:
                lease.release()
                raise
            logger.info("started server %s", record.ref)
            return _Child(record=record, pipe=pipe, lease=lease)
        from fastmcp import Client

        transport = transport_for(record, None, start)
        client: Client[Any] = Client(
            transport, mode="legacy", init_timeout=settings.timeouts.server_start
        )
        try:
            await asyncio.wait_for(
                client.__aenter__(),  # type: ignore[no-untyped-call]
                settings.timeouts.server_start,
            )
        except BaseException:
            with contextlib.suppress(Exception):
                await client.close()  # type: ignore[no-untyped-call]
            raise
        logger.info("started server %s", record.ref)
        return _Child(record=record, client=client)

    async def _stop_child(self, child: _Child) -> None:
        self._unlist(child)
        await self._close(child)

    def _unlist(self, child: _Child) -> None:
        name = child.record.ref
        if self._children.get(name) is child:
            del self._children[name]
            self._notify()

    async def _close(self, child: _Child) -> None:
        try:
            with contextlib.suppress(Exception):
                # Shielded: a stop interrupted half-way would leave an orphan process.
                if child.pipe is not None:
                    await asyncio.shield(child.pipe.close())
                elif child.client is not None:
                    await asyncio.shield(child.client.close())  # type: ignore[no-untyped-call]
        finally:
            if child.lease is not None:
                child.lease.release()  # the process has exited: its files may go

    async def _failed(
        self, child: _Child, tool: str, exc: BaseException
    ) -> mcp_types.CallToolResult:
        name = child.record.ref
        logger.warning("call of %s.%s failed: %s", name, tool, exc)
        if child.is_dead():
            # Dropped now, so that the next call starts a fresh child.
            await self._stop_child(child)
            return error_result(
                f"server {name!r} stopped unexpectedly during {tool!r};"
                " it restarts on the next call"
            )
        return error_result(f"call of {tool!r} on server {name!r} failed: {_describe(exc)}")

    def _capped(
        self, result: mcp_types.CallToolResult, size: int | None, server: str, tool: str
    ) -> mcp_types.CallToolResult:
        if size is None:  # an HTTP server's result, parsed by its client: measured here
            size = len(result.model_dump_json(exclude_none=True, by_alias=True))
        if size <= self._settings.result_max_bytes:
            return result
        return self._over_cap(size, server, tool)

    def _over_cap(self, size: int, server: str, tool: str) -> mcp_types.CallToolResult:
        cap = self._settings.result_max_bytes
        return error_result(
            f"the result of {tool!r} on server {server!r} is {size} bytes, over the {cap}-byte cap"
        )

    def _log_file(self, name: str) -> Path:
        # The child's stderr goes to a file, never to our stdout (the stdio MCP stream) and
        # not into the child's own writable work directory.
        logs = self._settings.home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        return logs / f"{name}.stderr.log"

    def _ensure_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(
                self._reap_forever(), name="metaserver-child-reaper", context=contextvars.Context()
            )

    async def _reap_forever(self) -> None:
        interval = min(max(self._settings.child_idle_seconds / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.reap_idle()
                if time.monotonic() - self._checked >= _REMOVED_CHECK_SECONDS:
                    self._checked = time.monotonic()
                    await self.retire_removed()
            except Exception:  # the reaper must outlive any single failed stop
                logger.exception("idle reaper")


async def _call_tool(
    child: _Child, tool: str, arguments: dict[str, Any], timeout: float
) -> tuple[mcp_types.CallToolResult, int | None]:
    """The child's result, with the length of its answer line when it came over a pipe."""
    if child.pipe is not None:
        raw, size = await child.pipe.request(
            "tools/call", {"name": tool, "arguments": arguments}, timeout
        )
        return mcp_types.CallToolResult.model_validate(raw), size
    assert child.client is not None
    return await child.client.call_tool_mcp(tool, arguments, timeout=timeout), None


async def _request(
    child: _Child,
    kind: type[_Result],
    method: str,
    params: dict[str, Any],
    by_client: Callable[[Client[Any]], Awaitable[_Result]],
    timeout: float,
) -> _Result:
    """A resource read or prompt request, over the child's pipe or through its client."""
    if child.pipe is not None:
        raw, _ = await child.pipe.request(method, params, timeout)
        return kind.model_validate(raw)
    assert child.client is not None
    return await by_client(child.client)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, TimeoutError) or not text:
        return type(exc).__name__
    return text.splitlines()[-1][:500]
