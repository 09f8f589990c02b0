"""Conversions as jobs: a conversion belongs to the meta-server, not to the request.

``convert_repo`` starts a :class:`Job` (an asyncio task owned by the :class:`JobTable`) and
follows it: the request only waits. A client that times out, cancels its request or
disconnects leaves the conversion running to its end, when it registers, mounts and
announces its server like any other. A second ``convert_repo`` for the same source and ref
while one runs joins that job. A job stops early only when asked: ``cancel_conversion``, MCP
``tasks/cancel``, or the server shutting down; the pipeline then deletes its files.

Followers get every progress message of the job, and between two messages a heartbeat that
repeats the current one (naming the tool being validated, when one is) every
:data:`HEARTBEAT` seconds: a stage such as validation runs for many seconds without a
message of its own, and clients treat silence as a hang.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from metaserver.contracts import ConversionReport
from metaserver.exceptions import MetaServerError

logger = logging.getLogger(__name__)

HEARTBEAT = 2.5
"""Seconds between two progress notifications at most (less than the 5 s promised)."""

_KEEP_FINISHED = 64
"""Finished jobs remembered for ``conversion_status``; older ones are forgotten."""

Report = Callable[[float, float, str], Awaitable[None]]
State = Literal["running", "succeeded", "failed", "cancelled", "error"]


@dataclass
class Job:
    """One conversion the server runs; its task is created by :meth:`JobTable.start`."""

    id: str
    source: str
    ref: str | None
    repo_url: str | None = None
    owner: str | None = None
    started: float = field(default_factory=time.monotonic)
    stage: str = "queued"
    done: float = 0.0
    total: float = 6.0
    tool: str | None = None
    task: asyncio.Task[ConversionReport] | None = None
    finished: float | None = None
    stopping: bool = False
    """Asked to stop: it still runs its clean-up, but a new conversion no longer joins it."""
    _stage_started: float = field(default_factory=time.monotonic)
    _followers: list[asyncio.Queue[tuple[float, float, str]]] = field(default_factory=list)

    async def progress(self, message: str, done: float, total: float) -> None:
        """The pipeline's progress callback: record the stage and pass it to followers."""
        self.stage, self.done, self.total, self.tool = message, done, total, None
        self._stage_started = time.monotonic()
        for queue in self._followers:
            queue.put_nowait((done, total, message))

    def calling(self, tool: str | None) -> None:
        """The validation watcher (metaserver/agents/validate/watch.py): the tool called now."""
        self.tool = tool

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def state(self) -> State:
        if self.task is None or not self.task.done():
            return "running"
        if self.task.cancelled():
            return "cancelled"
        if self.task.exception() is not None:
            return "error"
        return "succeeded" if self.task.result().status == "success" else "failed"

    def status(self, describe_error: Callable[[BaseException], str]) -> dict[str, Any]:
        """What ``conversion_status`` answers: stage, elapsed time, and the outcome if done."""
        end = self.finished if self.finished is not None else time.monotonic()
        answer: dict[str, Any] = {
            "job": self.id,
            "source": self.source,
            "ref": self.ref,
            "repo_url": self.repo_url,
            "state": self.state,
            "stage": self.stage,
            "tool": self.tool,
            "elapsed_seconds": round(end - self.started, 1),
            "report": None,
            "error": None,
        }
        if self.task is not None and self.task.done() and not self.task.cancelled():
            error = self.task.exception()
            if error is None:
                answer["report"] = self.task.result().model_dump(mode="json")
            else:
                answer["error"] = describe_error(error)
        return answer

    async def follow(self, report: Report) -> ConversionReport:
        """Wait for the job's result, passing on its progress; cancelling this wait (the
        request went away) leaves the job running.

        Raises:
            ConversionCancelled: the job itself was cancelled.
            Exception: whatever the job raised.
        """
        task = self.task
        assert task is not None, "a job is followed once started"
        queue: asyncio.Queue[tuple[float, float, str]] = asyncio.Queue()
        self._followers.append(queue)
        if self.stage != "queued":  # a joiner hears where the job stands
            queue.put_nowait((self.done, self.total, self.stage))
        try:
            while True:
                while not queue.empty():
                    await _send(report, *queue.get_nowait())
                if task.done():
                    if task.cancelled():
                        raise ConversionCancelled(f"conversion {self.id} was cancelled")
                    return task.result()
                getter = asyncio.ensure_future(queue.get())
                try:
                    # asyncio.wait never cancels what it waits for: the job is shielded.
                    finished, _ = await asyncio.wait(
                        {getter, task}, timeout=HEARTBEAT, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    getter.cancel()
                if getter in finished:
                    await _send(report, *getter.result())
                elif not finished:
                    await _send(report, *self._heartbeat())
        finally:
            self._followers.remove(queue)

    def _heartbeat(self) -> tuple[float, float, str]:
        # MCP wants progress to increase with each notification: creep towards the next
        # stage without reaching it.
        waited = time.monotonic() - self._stage_started
        message = f"{self.stage}: calling {self.tool}" if self.tool else self.stage
        return self.done + 0.9 * waited / (waited + 60.0), self.total, message


async def _send(report: Report, done: float, total: float, message: str) -> None:
    try:
        await report(done, total, message)
    except Exception as exc:  # a closed stream must not stop the waiting
        logger.debug("progress not delivered: %s", exc)


class ConversionCancelled(Exception):
    """The job a request followed was cancelled (``cancel_conversion``, another task's
    ``tasks/cancel``, the server stopping)."""


def _log_unexpected(task: asyncio.Task[ConversionReport]) -> None:
    # Retrieves the exception even when no request is left to see it.
    error = None if task.cancelled() else task.exception()
    if error is not None and not isinstance(error, MetaServerError):
        logger.error("%s failed unexpectedly", task.get_name(), exc_info=error)


class JobTable:
    """The meta-server's conversions: running ones by id and by (source, ref), and the
    most recent finished ones."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()

    def start(
        self,
        source: str,
        ref: str | None,
        run: Callable[[Job], Awaitable[ConversionReport]],
        repo_url: str | None = None,
        owner: str | None = None,
    ) -> tuple[Job, bool]:
        """The running job for ``source`` at ``ref`` (and, for a paper, ``repo_url``), or a
        new one running ``run(job)``.

        A new job belongs to ``owner`` (the principal who started it, for its quota).

        Returns:
            The job, and whether it was started by this call (False: joined).
        """
        running = self.joinable(source, ref, repo_url)
        if running is not None:
            return running, False
        job = Job(id=secrets.token_hex(4), source=source, ref=ref, repo_url=repo_url, owner=owner)
        job.task = asyncio.get_running_loop().create_task(
            self._run(job, run), name=f"conversion-{job.id}"
        )
        job.task.add_done_callback(_log_unexpected)
        self._jobs[job.id] = job
        self._forget_old()
        return job, True

    async def _run(
        self, job: Job, run: Callable[[Job], Awaitable[ConversionReport]]
    ) -> ConversionReport:
        try:
            return await run(job)
        finally:
            job.finished = time.monotonic()
            job.stage, job.tool = "done", None

    def all(self) -> list[Job]:
        """The running jobs and the most recent finished ones, oldest first."""
        return list(self._jobs.values())

    def joinable(self, source: str, ref: str | None, repo_url: str | None) -> Job | None:
        """The running job that a conversion of ``source`` at ``ref`` would join."""
        for job in self._jobs.values():
            # A job being cancelled ends in ConversionCancelled: joining it would cancel a
            # request that asked for no such thing, so a new conversion starts instead.
            same = (job.source, job.ref, job.repo_url) == (source, ref, repo_url)
            if job.running and not job.stopping and same:
                return job
        return None

    def running_of(self, owner: str) -> int:
        """How many running jobs ``owner`` started."""
        return sum(1 for job in self._jobs.values() if job.running and job.owner == owner)

    def find(self, job_or_source: str) -> Job | None:
        """A job by id, else the newest job of that source (a running one first)."""
        if job_or_source in self._jobs:
            return self._jobs[job_or_source]
        matching = [job for job in self._jobs.values() if job.source == job_or_source]
        running = [job for job in matching if job.running]
        newest = running or matching
        return newest[-1] if newest else None

    async def cancel(self, job: Job, wait: float = 60.0) -> None:
        """Cancel ``job`` and give its clean-up up to ``wait`` seconds."""
        if job.task is None or job.task.done():
            return
        job.stopping = True
        job.task.cancel()
        await asyncio.wait({job.task}, timeout=wait)

    async def close(self) -> None:
        """Cancel every running job (the server is stopping) and let them clean up."""
        running = [job.task for job in self._jobs.values() if job.task and not job.task.done()]
        for job in self._jobs.values():
            job.stopping = job.stopping or job.running
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running, timeout=60.0)

    def _forget_old(self) -> None:
        finished = [key for key, job in self._jobs.items() if not job.running]
        for key in finished[: max(0, len(finished) - _KEEP_FINISHED)]:
            del self._jobs[key]
